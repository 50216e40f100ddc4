//! `report.html`: the rehearsal drawn as one self-contained page (inline
//! SVG charts drawn with plotters' SVG backend, inline CSS, nothing fetched)
//! — the writer's latency per second, the new member's bytes against the
//! catch-up check's prediction, the leader and its term with the elections,
//! the change's steps as vertical marks on every chart — and the summary
//! table, each figure tagged with its report.json key (`data-key`).

use plotters::prelude::*;

use super::model::{Latency, RehearsalReport};

/// The charts' width and height in pixels.
const SIZE: (u32, u32) = (1100, 300);

/// A colour for each step, in [`super::model::StepKind`]'s order.
const STEP_COLOURS: [RGBColor; 6] = [
    RGBColor(0x1b, 0x9e, 0x77),
    RGBColor(0x75, 0x70, 0xb3),
    RGBColor(0xd9, 0x5f, 0x02),
    RGBColor(0x66, 0xa6, 0x1e),
    RGBColor(0xe7, 0x29, 0x8a),
    RGBColor(0x66, 0x66, 0x66),
];

/// Escapes text for HTML.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The time axis' end: the last thing seen, at least one second.
fn t_end(r: &RehearsalReport) -> f64 {
    r.timeline.ended_s.max(1.0)
}

/// Draws the change's steps and its start and end as vertical marks.
fn marks<DB: DrawingBackend>(
    chart: &mut ChartContext<
        '_,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    r: &RehearsalReport,
    y_top: f64,
) -> Result<(), String> {
    let t = &r.timeline;
    for (x, label) in [(t.change_started_s, "change"), (t.settled_s, "settled")] {
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x, 0.0), (x, y_top)],
                BLACK.mix(0.35).stroke_width(1),
            )))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(std::iter::once(Text::new(
                label.to_string(),
                (x, y_top * 0.99),
                ("sans-serif", 11).into_font().color(&BLACK.mix(0.6)),
            )))
            .map_err(|e| e.to_string())?;
    }
    for (i, s) in r.steps.iter().enumerate() {
        let c = STEP_COLOURS[s.step as usize % STEP_COLOURS.len()];
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(s.at_s, 0.0), (s.at_s, y_top)],
                c.stroke_width(2),
            )))
            .map_err(|e| e.to_string())?;
        // Labels staggered, so that steps close in time stay readable.
        let y = y_top * (0.9 - 0.08 * (i % 5) as f64);
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{} {}", s.step.as_str(), s.member),
                (s.at_s, y),
                ("sans-serif", 12).into_font().color(&c),
            )))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A line of a chart: its name, colour and points.
type Series<'a> = (&'a str, RGBColor, Vec<(f64, f64)>);

/// One chart: `series` (name, colour, points), its axis labels, the
/// marks, and `elections` as red marks.
fn chart(
    r: &RehearsalReport,
    elections: &[(f64, String)],
    caption: &str,
    y_desc: &str,
    series: &[Series<'_>],
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let y_max = series
            .iter()
            .flat_map(|(_, _, p)| p.iter().map(|(_, y)| *y))
            .fold(0.0_f64, f64::max)
            .max(1.0)
            * 1.15;
        let mut c = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..t_end(r), 0.0..y_max)
            .map_err(|e| e.to_string())?;
        c.configure_mesh()
            .x_desc("seconds since the rehearsal began")
            .y_desc(y_desc)
            .light_line_style(BLACK.mix(0.05))
            .draw()
            .map_err(|e| e.to_string())?;
        marks(&mut c, r, y_max)?;
        for (x, label) in elections {
            c.draw_series(std::iter::once(PathElement::new(
                vec![(*x, 0.0), (*x, y_max)],
                RED.stroke_width(3),
            )))
            .map_err(|e| e.to_string())?;
            c.draw_series(std::iter::once(Text::new(
                label.clone(),
                (*x, y_max * 0.5),
                ("sans-serif", 12).into_font().color(&RED),
            )))
            .map_err(|e| e.to_string())?;
        }
        for (name, colour, points) in series {
            let colour = *colour;
            c.draw_series(LineSeries::new(
                points.iter().copied(),
                colour.stroke_width(2),
            ))
            .map_err(|e| e.to_string())?
            .label(*name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
            });
        }
        c.configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// The writer's latency chart: p50, p99 and max per second.
fn latency_chart(r: &RehearsalReport) -> Result<String, String> {
    let pick = |f: fn(&Latency) -> Option<f64>| -> Vec<(f64, f64)> {
        r.per_second
            .iter()
            .filter_map(|s| f(&s.latency).map(|v| (s.second as f64 + 0.5, v)))
            .collect()
    };
    chart(
        r,
        &[],
        "Writer latency per second",
        "ms",
        &[
            ("p50", RGBColor(0x1f, 0x77, 0xb4), pick(|l| l.p50_ms)),
            ("p99", RGBColor(0xff, 0x7f, 0x0e), pick(|l| l.p99_ms)),
            ("max", RGBColor(0xd6, 0x27, 0x28), pick(|l| l.max_ms)),
        ],
    )
}

/// The new member's bytes received against the prediction.
fn bytes_chart(r: &RehearsalReport) -> Result<String, String> {
    let mib = |b: f64| b / (1024.0 * 1024.0);
    let measured: Vec<(f64, f64)> = r
        .new_member_bytes
        .iter()
        .map(|(t, b)| (*t, mib(*b as f64)))
        .collect();
    let start = r
        .steps
        .iter()
        .find(|s| s.step == super::model::StepKind::Start)
        .map(|s| s.at_s);
    let predicted: Vec<(f64, f64)> = match (&r.prediction, start) {
        (Some(p), Some(t0)) => {
            let end = p.predicted_seconds.unwrap_or(0.0).max(0.0);
            let steps = 40;
            (0..=steps)
                .map(|i| {
                    let s = end * i as f64 / steps as f64;
                    (t0 + s, mib(p.bytes_at(s)))
                })
                .chain(std::iter::once((t_end(r), mib(p.bytes_at(end)))))
                .collect()
        }
        _ => Vec::new(),
    };
    chart(
        r,
        &[],
        "New member: bytes received vs the catch-up check's prediction",
        "MiB",
        &[
            ("received", RGBColor(0x2c, 0xa0, 0x2c), measured),
            ("predicted", RGBColor(0x94, 0x67, 0xbd), predicted),
        ],
    )
}

/// The leader (its index among the leaders seen) and the term, the elections marked.
fn leader_chart(r: &RehearsalReport) -> Result<String, String> {
    let mut names: Vec<String> = Vec::new();
    for p in &r.leaders {
        if let Some(l) = &p.leader {
            if !names.contains(l) {
                names.push(l.clone());
            }
        }
    }
    let leader: Vec<(f64, f64)> = r
        .leaders
        .iter()
        .map(|p| {
            let i = p
                .leader
                .as_ref()
                .and_then(|l| names.iter().position(|n| n == l))
                .map_or(0.0, |i| i as f64 + 1.0);
            (p.at_s, i)
        })
        .collect();
    let term: Vec<(f64, f64)> = r.leaders.iter().map(|p| (p.at_s, p.term as f64)).collect();
    let elections: Vec<(f64, String)> = r
        .elections
        .iter()
        .map(|e| (e.at_s, format!("election: term {}", e.term)))
        .collect();
    chart(
        r,
        &elections,
        &format!(
            "Leader and term (leader: 0 none, {})",
            names
                .iter()
                .enumerate()
                .map(|(i, n)| format!("{} {n}", i + 1))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        "leader / term",
        &[
            ("leader", RGBColor(0x17, 0xbe, 0xcf), leader),
            ("term", RGBColor(0x8c, 0x56, 0x4b), term),
        ],
    )
}

/// A number as the table shows it (3 decimals), or "–".
fn num(v: Option<f64>) -> String {
    v.filter(|v| v.is_finite())
        .map_or("–".into(), |v| format!("{v:.3}"))
}

/// One table row, its figure tagged with `key` (a report.json path under `summary`).
fn row(label: &str, key: &str, value: String) -> String {
    format!(
        "<tr><th>{}</th><td data-key=\"{}\">{}</td></tr>\n",
        escape(label),
        escape(key),
        escape(&value)
    )
}

/// The summary table.
fn table(r: &RehearsalReport) -> String {
    let s = &r.summary;
    let mut t = String::from("<table class=\"summary\">\n");
    t.push_str(&row(
        "catch-up time (s)",
        "catch_up_seconds",
        num(s.catch_up_seconds),
    ));
    t.push_str(&row(
        "link floor (s)",
        "link_floor_seconds",
        num(s.link_floor_seconds),
    ));
    t.push_str(&row(
        "catch-up / link floor",
        "catch_up_to_floor_ratio",
        num(s.catch_up_to_floor_ratio),
    ));
    t.push_str(&row(
        "predicted catch-up (s)",
        "predicted_seconds",
        num(s.predicted_seconds),
    ));
    t.push_str(&row(
        "predicted bytes",
        "predicted_bytes",
        s.predicted_bytes.map_or("–".into(), |b| b.to_string()),
    ));
    t.push_str(&row(
        "bytes received by the new member",
        "bytes_received",
        s.bytes_received.map_or("–".into(), |b| b.to_string()),
    ));
    for (name, l) in [
        ("before", &s.before),
        ("during", &s.during),
        ("after", &s.after),
    ] {
        t.push_str(&row(
            &format!("writer p99 {name} (ms)"),
            &format!("{name}.p99_ms"),
            num(l.p99_ms),
        ));
        t.push_str(&row(
            &format!("writes {name} (failed)"),
            &format!("{name}.writes"),
            format!("{} ({})", l.writes, l.failed),
        ));
    }
    t.push_str(&row(
        "failed writes",
        "failed_writes",
        s.failed_writes.to_string(),
    ));
    t.push_str(&row(
        "leader changes seen",
        "leader_changes",
        s.leader_changes.to_string(),
    ));
    if let Some(c) = &s.cost {
        t.push_str(&row(
            "cost: leader changes counted",
            "cost.leader_changes",
            c.leader_changes.to_string(),
        ));
        t.push_str(&row(
            "cost: heartbeat send failures",
            "cost.heartbeat_send_failures",
            c.heartbeat_send_failures.to_string(),
        ));
        t.push_str(&row(
            "cost: slow applies",
            "cost.slow_applies",
            c.slow_applies.to_string(),
        ));
    }
    t.push_str("</table>\n");
    t
}

/// The page's style.
const STYLE: &str = "body{font-family:sans-serif;margin:24px;color:#222;background:#fff}\
h1{font-size:22px}h2{font-size:17px;margin-top:28px}\
table{border-collapse:collapse;margin:8px 0}th,td{border:1px solid #ccc;padding:4px 10px;text-align:left}\
td{font-variant-numeric:tabular-nums}.fail{color:#b00020;font-weight:bold}.ok{color:#1b7e3c}\
code{background:#f3f3f3;padding:1px 4px}figure{margin:12px 0}";

/// The whole page.
pub fn page(r: &RehearsalReport) -> Result<String, String> {
    let (latency, bytes, leader) = (latency_chart(r)?, bytes_chart(r)?, leader_chart(r)?);
    let outcome = if r.change.ok {
        "<p class=\"ok\">The change succeeded.</p>".to_string()
    } else {
        format!(
            "<p class=\"fail\">The change failed (exit code {}): {}</p>",
            r.change.exit_code.map_or("none".into(), |c| c.to_string()),
            escape(r.change.error.as_deref().unwrap_or("no message"))
        )
    };
    let steps: String = r
        .steps
        .iter()
        .map(|s| {
            format!(
                "<tr><td>{:.2}</td><td>{}</td><td>{}</td></tr>\n",
                s.at_s,
                s.step.as_str(),
                escape(&s.member)
            )
        })
        .collect();
    let elections: String = r
        .elections
        .iter()
        .map(|e| {
            format!(
                "<tr><td>{:.2}</td><td>{}</td><td>{}</td></tr>\n",
                e.at_s,
                escape(e.leader.as_deref().unwrap_or("none")),
                e.term
            )
        })
        .collect();
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
<title>memberctl rehearsal</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
<h1>Rehearsal of <code>{command}</code></h1>\n\
<p>On {server} {version} ({dir}); writer: {rate} puts/s of {size} B values. \
Every figure is in report.json beside this page.</p>\n{outcome}\n\
<h2>Summary</h2>\n{table}\
<h2>Writer latency</h2>\n<figure id=\"latency\">{latency}</figure>\n\
<h2>Catch-up</h2>\n<figure id=\"bytes\">{bytes}</figure>\n\
<h2>Leader</h2>\n<figure id=\"leader\">{leader}</figure>\n\
<h2>Steps</h2>\n<table class=\"steps\"><tr><th>s</th><th>step</th><th>member</th></tr>\n{steps}</table>\n\
<h2>Elections</h2>\n<table class=\"elections\"><tr><th>s</th><th>leader</th><th>term</th></tr>\n{elections}</table>\n\
</body>\n</html>\n",
        command = escape(&r.change.command.join(" ")),
        server = escape(&r.settings.server),
        version = escape(&r.settings.server_version),
        dir = escape(&r.settings.cluster_dir),
        rate = r.settings.writer_rate_per_second,
        size = r.settings.value_size_bytes,
        table = table(r),
    ))
}
