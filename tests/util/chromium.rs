//! A page looked at as a person would: Debian's headless Chromium takes a
//! screenshot of it and dumps the DOM it rendered, each within a bound.

use std::path::Path;
use std::time::Duration;

/// The longest Chromium may take for one page.
const LIMIT: Duration = Duration::from_secs(60);

/// Chromium with the flags of a headless run, its profile in `profile`.
fn chromium(profile: &Path) -> std::process::Command {
    let mut c = std::process::Command::new("chromium");
    c.args([
        "--headless",
        "--disable-gpu",
        "--no-sandbox",
        "--hide-scrollbars",
        "--window-size=1200,2400",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .env("HOME", profile);
    c
}

/// A screenshot of `page` (an HTML file) into `png`.
pub fn screenshot(page: &Path, png: &Path, profile: &Path) {
    let r = super::run_within(
        chromium(profile)
            .arg(format!("--screenshot={}", png.display()))
            .arg(format!("file://{}", page.display())),
        None,
        LIMIT,
    );
    assert!(
        r.code == 0 && png.is_file(),
        "chromium took no screenshot of {} (exit {}):\n{}",
        page.display(),
        r.code,
        r.stderr
    );
}

/// The DOM Chromium rendered from `page`.
pub fn dump_dom(page: &Path, profile: &Path) -> String {
    let r = super::run_within(
        chromium(profile)
            .arg("--dump-dom")
            .arg(format!("file://{}", page.display())),
        None,
        LIMIT,
    );
    assert_eq!(r.code, 0, "chromium --dump-dom failed:\n{}", r.stderr);
    r.stdout
}

/// What a PNG shows: its size, the share of its pixels that are not white,
/// and how many distinct colours it has.
pub struct Looked {
    /// Width and height.
    pub size: (u32, u32),
    /// Pixels not (nearly) white, as a share of all.
    pub inked: f64,
    /// Distinct colours (RGB).
    pub colours: usize,
}

/// Decodes `png` and looks at its pixels.
pub fn look(png: &Path) -> Looked {
    let file = std::fs::File::open(png).expect("open the screenshot");
    let mut decoder = png::Decoder::new(file);
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("a PNG frame");
    let channels = info.color_type.samples();
    let pixels = &buf[..info.buffer_size()];
    let mut colours = std::collections::HashSet::new();
    let mut inked = 0usize;
    let mut n = 0usize;
    for px in pixels.chunks(channels) {
        let rgb = match channels {
            1 | 2 => (px[0], px[0], px[0]),
            _ => (px[0], px[1], px[2]),
        };
        n += 1;
        if rgb.0 < 240 || rgb.1 < 240 || rgb.2 < 240 {
            inked += 1;
        }
        colours.insert(rgb);
    }
    Looked {
        size: (info.width, info.height),
        inked: inked as f64 / n.max(1) as f64,
        colours: colours.len(),
    }
}
