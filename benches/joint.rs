//! Write latency seen by a steady writer (a put every 2 ms) while the bundled
//! engine enters and leaves joint configurations: 10 cycles on a 3-voter
//! cluster with one learner, each swapping which member is the learner
//! (`joint enter --promote L --demote V`, then `joint leave`). Reference in the
//! same run: the writer's latency while no change is under way. Prints a
//! Markdown table (also target/bench-report-joint.md).

mod common;
#[path = "../tests/util/mod.rs"]
#[allow(unused_imports)]
mod util;

use std::time::{Duration, Instant};

use common::memberctl;
use util::writer::SteadyWriter;

const CYCLES: usize = 10;

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("cluster");
    let up = memberctl(&dir, &["cluster", "up"]);
    let url = up["endpoints"][0].as_str().unwrap().to_string();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    memberctl(
        &dir,
        &[
            "member",
            "add",
            "n4",
            "--learner",
            "--peer-urls",
            &format!("http://127.0.0.1:{port}"),
        ],
    );
    memberctl(&dir, &["cluster", "start-node", "n4"]);
    // The learner swaps with a voter that is not the member the writer talks to.
    let writer_node = up["nodes"][0]["name"].as_str().unwrap().to_string();
    let mut learner = "n4".to_string();
    let mut voter = up["nodes"][2]["name"].as_str().unwrap().to_string();
    assert_ne!(voter, writer_node);

    let writer = SteadyWriter::start(vec![url.clone()], "writer/", Duration::from_millis(2));
    std::thread::sleep(Duration::from_secs(2));
    let quiet = (Instant::now() - Duration::from_secs(2), Instant::now());
    let (mut enters, mut leaves) = (Vec::new(), Vec::new());
    for _ in 0..CYCLES {
        let t = Instant::now();
        // The swapped-in learner may need a moment to catch up (rule 6): retry, boundedly.
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_memberctl"))
                .args([
                    "member",
                    "joint",
                    "enter",
                    "--promote",
                    &learner,
                    "--demote",
                    &voter,
                ])
                .env("MEMBERCTL_CLUSTER_DIR", &dir)
                .output()
                .unwrap();
            if out.status.success() {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "joint enter kept failing: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        enters.push((t, Instant::now()));
        let t = Instant::now();
        memberctl(&dir, &["member", "joint", "leave"]);
        leaves.push((t, Instant::now()));
        std::mem::swap(&mut learner, &mut voter);
    }
    let samples = writer.finish().samples;
    memberctl(&dir, &["cluster", "down"]);
    let mut report = format!(
        "Writer latency (a put every 2 ms) during {CYCLES} joint enter / leave cycles (3 voters + 1 learner, swapped each cycle)\n\n| phase | puts | max | p99 |\n|---|---|---|---|\n"
    );
    for (name, windows) in [
        ("no change (reference)", vec![quiet]),
        ("joint enter", enters),
        ("joint leave", leaves),
    ] {
        let (n, _, p99, max) = common::window_stats(&samples, &windows);
        report.push_str(&format!("| {name} | {n} | {max:.1} ms | {p99:.1} ms |\n"));
    }
    println!("{report}");
    common::publish("joint", &report);
}
