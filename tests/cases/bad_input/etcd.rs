//! The bad-input matrix against etcd 3.4 (a one-member cluster), then wrong credentials with authentication on.

use super::ctx::free_url;
use super::{add_learner_named_like_the_voter, case, phase_a, phase_b, Server};
use crate::util::{self, require_etcd, Etcd};

/// etcd 3.4: the same matrix on a one-member cluster, then a wrong password with authentication on.
fn bad_input_matrix_against_etcd() {
    let bin = require_etcd();
    let started = std::time::Instant::now();
    let mut etcd = Etcd::start(bin, 1);
    let tmp = tempfile::tempdir().unwrap();
    let (ctx, n_a, added, port) = {
        let server = Server::Etcd(&etcd);
        let (ctx, n) = phase_a(&server, tmp.path());
        let (added, port) = add_learner_named_like_the_voter(&server, &ctx);
        (ctx, n, added, port)
    };
    etcd.start_added(
        &ctx.voter_id,
        port,
        added["initial_cluster"].as_str().unwrap(),
    );
    let server = Server::Etcd(&etcd);
    let mut n = n_a + phase_b(&server, &ctx);

    // Phase C: authentication enabled (by etcdctl), wrong credentials.
    {
        let etcdctl = util::require_etcdctl();
        // The voter only: etcdctl does not skip a learner, which refuses these calls.
        let eps = format!("127.0.0.1:{}", etcd.members[0].client_port);
        for args in [
            vec!["user", "add", "root:right-pw"],
            vec!["role", "add", "root"],
            vec!["user", "grant-role", "root", "root"],
            vec!["auth", "enable"],
        ] {
            util::etcdctl(&etcdctl, &eps, &args).expect(0);
        }
        let failed = "authentication as \"root\" failed";
        let auth = vec![
            case(
                "wrong password",
                &["--user", "root:wrong-pw", "member", "list"],
                3,
                failed,
            )
            .secret("wrong-pw"),
            case(
                "wrong password for a change",
                &[
                    "--user",
                    "root",
                    "--password",
                    "wrong-pw",
                    "member",
                    "add",
                    "x",
                    "--learner",
                    "--peer-urls",
                    &free_url(),
                ],
                3,
                failed,
            )
            .secret("wrong-pw"),
            case(
                "unknown user",
                &["--user", "nobody:right-pw", "member", "list"],
                3,
                "authentication as \"nobody\" failed",
            )
            .secret("right-pw"),
        ];
        n += server.matrix("authentication on", &auth, &["--user", "root:right-pw"]);
    }
    eprintln!(
        "bad input matrix: {n} cases against etcd in {:.1?}",
        started.elapsed()
    );
    assert!(n >= 40, "only {n} cases");
}

/// This file's cases and the tools each needs.
pub(super) fn cases() -> Vec<crate::harness::Case> {
    crate::harness::cases![
        bad_input_matrix_against_etcd: [Etcd, Etcdctl],
    ]
}
