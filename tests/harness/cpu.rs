//! A case's CPU time, every process it started included: the thread that runs it is put in a cgroup (v1 cpuacct) of its own, which the threads and processes it starts inherit — also the members a `cluster up` leaves running — and whose usage counts them after they exit.
//!
//! Where the cgroup cannot be made (no cpuacct hierarchy, not root), a case's
//! CPU time is simply not measured.

use std::path::PathBuf;

/// The cpuacct hierarchy.
const ROOT: &str = "/sys/fs/cgroup/cpuacct";

/// The cgroup a running case's thread was moved into.
pub struct Meter {
    dir: PathBuf,
}

/// This thread's ID (cgroup v1 moves single threads).
fn tid() -> i64 {
    // SAFETY: gettid takes no arguments and cannot fail.
    unsafe { libc::syscall(libc::SYS_gettid) }
}

impl Meter {
    /// Moves the calling thread into a new cgroup named `n` under this test
    /// process's; `None` when that cannot be done here.
    pub fn start(n: usize) -> Option<Meter> {
        let dir = group().join(n.to_string());
        std::fs::create_dir_all(&dir).ok()?;
        std::fs::write(dir.join("tasks"), tid().to_string()).ok()?;
        Some(Meter { dir })
    }

    /// The CPU seconds of everything that ran in the cgroup; the thread goes
    /// back to the root group and the cgroup is removed (it stays while a
    /// process the case leaked still runs in it).
    pub fn finish(self) -> Option<f64> {
        let usage = std::fs::read_to_string(self.dir.join("cpuacct.usage")).ok();
        let _ = std::fs::write(PathBuf::from(ROOT).join("tasks"), tid().to_string());
        let _ = std::fs::remove_dir(&self.dir);
        Some(usage?.trim().parse::<f64>().ok()? / 1e9)
    }
}

/// This test process's cgroup, under which each case gets its own.
fn group() -> PathBuf {
    PathBuf::from(ROOT).join(format!("memberctl-tests-{}", std::process::id()))
}

/// Removes this test process's cgroup and its cases' once the cases are
/// done, and those an earlier run left behind (a group stays while a process
/// still runs in it: one a case's members were killed but had not exited yet
/// when the case ended).
pub fn cleanup() {
    let Ok(groups) = std::fs::read_dir(ROOT) else {
        return;
    };
    for group in groups.flatten() {
        let name = group.file_name();
        if !name.to_string_lossy().starts_with("memberctl-tests-") {
            continue;
        }
        if let Ok(cases) = std::fs::read_dir(group.path()) {
            for case in cases.flatten().filter(|c| c.path().is_dir()) {
                let _ = std::fs::remove_dir(case.path());
            }
        }
        let _ = std::fs::remove_dir(group.path());
    }
}
