//! memberctl against an etcd with authentication enabled.

use crate::util::versions::{etcd_server, per_etcd_version};
use crate::util::{self, free_port, Etcd};

/// memberctl against an etcd with authentication enabled (by etcdctl): the
/// right password works for the learner flow's add and remove; a wrong one is
/// refused with exit 3 and never printed; no password without a terminal is a
/// usage error.
fn authentication_against_etcd(version: &'static str) {
    let Some(bin) = etcd_server(version, "authentication_against_etcd") else {
        return;
    };
    let Some(etcdctl) = util::require_etcdctl("authentication_against_etcd") else {
        return;
    };
    let etcd = Etcd::start(bin, 3);
    let eps: String = etcd
        .members
        .iter()
        .map(|m| format!("127.0.0.1:{}", m.client_port))
        .collect::<Vec<_>>()
        .join(",");
    for args in [
        vec!["user", "add", "root:s3cret-pw"],
        vec!["role", "add", "root"],
        vec!["user", "grant-role", "root", "root"],
        vec!["auth", "enable"],
    ] {
        util::etcdctl(&etcdctl, &eps, &args).expect(0);
    }
    let before = etcd
        .ctl(&["--user", "root:s3cret-pw", "member", "list", "-w", "json"])
        .expect(0)
        .stdout;

    let r = etcd
        .ctl(&[
            "--user",
            "root:wr0ng-pw",
            "member",
            "add",
            "a1",
            "--learner",
            "--peer-urls",
            "http://127.0.0.1:1",
            "-w",
            "json",
        ])
        .expect(3);
    assert!(
        r.stderr.contains("authentication as \"root\" failed"),
        "{}",
        r.stderr
    );
    assert!(
        !r.stderr.contains("wr0ng-pw") && !r.stdout.contains("wr0ng-pw"),
        "the password was printed"
    );
    let r = etcd.ctl(&["--user", "root", "member", "list"]).expect(2);
    assert!(r.stderr.contains("no password"), "{}", r.stderr);
    assert_eq!(
        before,
        etcd.ctl(&["--user", "root:s3cret-pw", "member", "list", "-w", "json"])
            .expect(0)
            .stdout
    );

    let peer = format!("http://127.0.0.1:{}", free_port());
    let added = etcd
        .ctl(&[
            "--user",
            "root",
            "--password",
            "s3cret-pw",
            "member",
            "add",
            "a1",
            "--learner",
            "--peer-urls",
            &peer,
            "-w",
            "json",
        ])
        .expect(0)
        .json();
    let id = added["member"]["id"].as_str().unwrap().to_string();
    let status = etcd
        .ctl(&["--user", "root:s3cret-pw", "member", "status", "-w", "json"])
        .expect(0)
        .json();
    assert!(status["leader"].is_string());
    etcd.ctl(&["--user", "root:s3cret-pw", "member", "remove", &id])
        .expect(0);
}

per_etcd_version!(authentication_against_etcd);
