//! A failed soak's story: faults, the autopilots' actions and what the
//! watcher saw, one line each in time order, for the end of its message.

use super::watcher::Sample;
use crate::util::autopilot::read_lines;

/// The faults, the autopilots' actions (not their looks) and each change
/// in what the watcher saw (leader, voters, learners heard and caught up,
/// autopilots), one line each in time order, seconds from `began`: what a
/// failed run's log must show to be understood without its files.
pub fn story(
    began: u64,
    chaos: &[serde_json::Value],
    names: &[&str],
    files: &[std::path::PathBuf],
    samples: &[Sample],
) -> String {
    let at = |ms: u64| format!("{:>7.1}s", (ms as f64 - began as f64) / 1e3);
    let mut lines: Vec<(u64, String)> = chaos
        .iter()
        .map(|l| {
            let ms = l["unix_ms"].as_u64().unwrap_or(0);
            (
                ms,
                format!(
                    "{} chaos {} {}: {}",
                    at(ms),
                    l["seq"],
                    l["phase"],
                    l["detail"]
                ),
            )
        })
        .collect();
    for (name, file) in names.iter().zip(files) {
        for l in read_lines(file) {
            if l["action"] == "none" && l["phase"] != "failed" {
                continue;
            }
            let ms = l["unix_ms"].as_u64().unwrap_or(0);
            let member = l["member"]["name"].as_str().unwrap_or("");
            let error = l["error"]
                .as_str()
                .map(|e| format!(" error: {e}"))
                .unwrap_or_default();
            lines.push((
                ms,
                format!(
                    "{} {name} {} {} {member}{error}",
                    at(ms),
                    l["action"],
                    l["phase"]
                ),
            ));
        }
    }
    let mut last = String::new();
    for s in samples {
        let members: Vec<String> = s
            .members
            .iter()
            .map(|m| {
                let caught_up = m.matched * 10 >= s.last_index * 9;
                format!(
                    "{}{}{}",
                    if m.name.is_empty() {
                        "(unnamed)"
                    } else {
                        &m.name
                    },
                    if m.is_learner { "(learner)" } else { "" },
                    match (m.heard, caught_up) {
                        (true, true) => "",
                        (true, false) => "~behind",
                        (false, _) => "~unheard",
                    }
                )
            })
            .collect();
        let seen = format!(
            "leader {} voters+learners [{}] autopilots {}",
            s.leader.map_or("none".to_string(), |l| format!("{l:x}")),
            members.join(" "),
            s.autopilots
        );
        if seen != last {
            lines.push((s.unix_ms, format!("{} seen {seen}", at(s.unix_ms))));
            last = seen;
        }
    }
    lines.sort_by_key(|(ms, _)| *ms);
    lines
        .into_iter()
        .map(|(_, l)| l)
        .collect::<Vec<_>>()
        .join("\n")
}
