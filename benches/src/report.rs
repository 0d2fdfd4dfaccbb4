//! The results: `results.json` (a fixed shape other tools read), the table on stdout, and a
//! bar chart as SVG.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// `results.json`.
#[derive(Serialize, Deserialize)]
pub struct Results {
    /// `full` or `quick`: figures of one mode are never compared with the other's.
    pub mode: String,
    /// The commit measured (`git rev-parse --short HEAD`, `+dirty` with local changes).
    pub commit: String,
    /// When, in UTC (`2026-11-23T06:15:55Z`).
    pub date: String,
    /// The V8 version measured.
    pub v8: String,
    /// One entry per bench that ran, in run order.
    pub results: Vec<BenchResult>,
    /// Benches of deno's set whose kinds opwire lacks yet: listed, never silently absent.
    pub pending: Vec<Pending>,
}

/// A bench that cannot run yet.
#[derive(Serialize, Deserialize, Clone)]
pub struct Pending {
    pub name: String,
    /// What it needs.
    pub why: String,
}

/// Figures to compare with (`--reference`): any JSON with a `results` list of `name` and
/// `ns_per_call` (a `results.json`, or `shared/bench-reference/deno_core-*.json`).
pub struct Reference {
    /// Where it came from, for the table and the chart.
    pub label: String,
    figures: Vec<(String, f64)>,
}

impl Reference {
    pub fn load(path: &Path) -> Result<Self, String> {
        #[derive(Deserialize)]
        struct Entry {
            name: String,
            ns_per_call: f64,
        }
        #[derive(Deserialize)]
        struct File {
            results: Vec<Entry>,
        }
        let text = std::fs::read_to_string(path).map_err(|err| err.to_string())?;
        let file: File = serde_json::from_str(&text).map_err(|err| err.to_string())?;
        let label = path.file_stem().map_or("reference".to_owned(), |stem| {
            stem.to_string_lossy().into_owned()
        });
        Ok(Self {
            label,
            figures: file
                .results
                .into_iter()
                .map(|entry| (entry.name, entry.ns_per_call))
                .collect(),
        })
    }

    /// The reference figure of a bench, if it has one.
    pub fn ns_per_call(&self, name: &str) -> Option<f64> {
        self.figures
            .iter()
            .find(|(reference, _)| reference == name)
            .map(|&(_, ns)| ns)
    }
}

/// `git rev-parse --short HEAD`, with `+dirty` if the tree has changes; `unknown` outside git.
pub fn git_commit() -> String {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    match git(&["rev-parse", "--short", "HEAD"]) {
        Some(commit) if git(&["status", "--porcelain"]).is_some_and(|s| !s.is_empty()) => {
            format!("{commit}+dirty")
        }
        Some(commit) => commit,
        None => "unknown".to_owned(),
    }
}

/// Now, in UTC, as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    utc_date(seconds)
}

/// Seconds since 1970 as a UTC date (Howard Hinnant's civil-from-days).
fn utc_date(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let time = seconds % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        time / 3600,
        time / 60 % 60,
        time % 60
    )
}

/// One bench's figures, all per op call.
#[derive(Serialize, Deserialize, Clone)]
pub struct BenchResult {
    pub name: String,
    /// Median over the samples.
    pub ns_per_call: f64,
    pub ns_per_call_min: f64,
    pub ns_per_call_max: f64,
    pub allocs_per_call: f64,
    pub bytes_per_call: f64,
    /// `fast`, `slow`, `mixed`, or `n/a` for benches without an op.
    pub path: String,
    /// Op calls over which allocations were counted (one untimed sample).
    pub calls: u64,
}

impl BenchResult {
    pub fn from_samples(
        name: &str,
        mut samples: Vec<f64>,
        allocs: u64,
        bytes: u64,
        calls: u64,
        path: &str,
    ) -> Self {
        samples.sort_by(f64::total_cmp);
        let median = samples[samples.len() / 2];
        Self {
            name: name.to_owned(),
            ns_per_call: round(median),
            ns_per_call_min: round(samples[0]),
            ns_per_call_max: round(samples[samples.len() - 1]),
            allocs_per_call: round(allocs as f64 / calls as f64),
            bytes_per_call: round(bytes as f64 / calls as f64),
            path: path.to_owned(),
            calls,
        }
    }
}

/// Three decimals: enough for sub-ns differences, stable in diffs.
fn round(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

impl Results {
    /// Reads a previous `results.json` or baseline; `None` if missing or unreadable.
    pub fn load(path: &Path) -> Option<Results> {
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
    }

    pub fn save(&self, path: &Path) {
        let json = serde_json::to_string_pretty(self).expect("results serialize");
        std::fs::write(path, json + "\n")
            .unwrap_or_else(|err| panic!("write {}: {err}", path.display()));
    }
}

/// The table printed at the end of a run: with `previous` (a run of the same mode), the change
/// per bench; with `reference`, its figure and the ratio.
pub fn table(
    results: &Results,
    previous: Option<&Results>,
    reference: Option<&Reference>,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "V8 {}, {} run, commit {}, {}",
        results.v8, results.mode, results.commit, results.date
    );
    if let Some(reference) = reference {
        let _ = writeln!(out, "reference: {}", reference.label);
    }
    let _ = write!(
        out,
        "{:<38} {:>10} {:>21} {:>11} {:>10} {:>6} {:>8}",
        "bench", "ns/call", "min..max", "allocs/call", "bytes/call", "path", "Δ%"
    );
    if reference.is_some() {
        let _ = write!(out, " {:>10} {:>7}", "ref ns", "ratio");
    }
    out.push('\n');
    for result in &results.results {
        let delta = previous
            .and_then(|previous| previous.results.iter().find(|old| old.name == result.name))
            .filter(|old| old.ns_per_call > 0.0)
            .map_or("-".to_owned(), |old| {
                format!(
                    "{:+.1}",
                    (result.ns_per_call / old.ns_per_call - 1.0) * 100.0
                )
            });
        let spread = format!(
            "{:.2}..{:.2}",
            result.ns_per_call_min, result.ns_per_call_max
        );
        let _ = write!(
            out,
            "{:<38} {:>10.2} {:>21} {:>11.3} {:>10.1} {:>6} {:>8}",
            result.name,
            result.ns_per_call,
            spread,
            result.allocs_per_call,
            result.bytes_per_call,
            result.path,
            delta
        );
        if let Some(reference) = reference {
            match reference.ns_per_call(&result.name) {
                Some(ns) => {
                    let _ = write!(out, " {ns:>10.2} {:>7.2}", result.ns_per_call / ns);
                }
                None => {
                    let _ = write!(out, " {:>10} {:>7}", "-", "-");
                }
            }
        }
        out.push('\n');
    }
    for pending in &results.pending {
        let _ = writeln!(out, "{:<38} pending: {}", pending.name, pending.why);
    }
    out
}

/// Path colours of the chart, with their legend.
const PATH_COLORS: [(&str, &str); 4] = [
    ("fast", "#2a9d8f"),
    ("slow", "#e76f51"),
    ("mixed", "#e9c46a"),
    ("n/a", "#8d99ae"),
];
const REFERENCE_COLOR: &str = "#b0b0b0";

/// A horizontal bar chart of ns/call on a log scale: a bar per bench coloured by path, its
/// min..max whisker, the reference figure (if any) as a grey bar under it, and the floors as
/// dashed vertical lines.
pub fn svg(results: &Results, reference: Option<&Reference>) -> String {
    const LABEL_WIDTH: f64 = 280.0;
    const BAR_AREA: f64 = 560.0;
    const ROW: f64 = 26.0;
    const TOP: f64 = 70.0;
    let reference_of = |name: &str| reference.and_then(|reference| reference.ns_per_call(name));
    let values: Vec<f64> = results
        .results
        .iter()
        .flat_map(|r| {
            [
                Some(r.ns_per_call_min),
                Some(r.ns_per_call_max),
                reference_of(&r.name),
            ]
        })
        .flatten()
        .map(|ns| ns.max(0.01))
        .collect();
    let low = values
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .log10()
        .floor();
    let high = values
        .iter()
        .copied()
        .fold(0.0, f64::max)
        .log10()
        .ceil()
        .max(low + 1.0);
    let x = |value: f64| LABEL_WIDTH + (value.max(0.01).log10() - low) / (high - low) * BAR_AREA;
    let height = TOP + ROW * results.results.len() as f64 + 30.0;
    let width = LABEL_WIDTH + BAR_AREA + 140.0;
    let bottom = height - 24.0;

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        svg,
        r#"<text x="10" y="20" font-size="14" font-weight="bold">bench-ops: ns per op call (log scale), V8 {}, {} run, {}</text>"#,
        escape(&results.v8),
        escape(&results.mode),
        escape(&results.commit)
    );
    // Legend: path colours, the reference, the floors, the whiskers.
    let mut legend_x = 10.0;
    for (path, color) in PATH_COLORS {
        legend_item(&mut svg, &mut legend_x, &format!("path {path}"), |x| {
            format!(r#"<rect x="{x:.1}" y="34" width="12" height="12" fill="{color}"/>"#)
        });
    }
    if let Some(reference) = reference {
        legend_item(&mut svg, &mut legend_x, &reference.label, |x| {
            format!(r#"<rect x="{x:.1}" y="37" width="12" height="6" fill="{REFERENCE_COLOR}"/>"#)
        });
    }
    legend_item(&mut svg, &mut legend_x, "floors", |x| {
        let x = x + 6.0;
        format!(
            r##"<line x1="{x:.1}" y1="34" x2="{x:.1}" y2="46" stroke="#264653" stroke-dasharray="3,2"/>"##
        )
    });
    legend_item(&mut svg, &mut legend_x, "whiskers: min..max", |x| {
        format!(
            r##"<path d="M{x:.1} 37V43M{x:.1} 40H{:.1}M{:.1} 37V43" stroke="#222" fill="none"/>"##,
            x + 12.0,
            x + 12.0
        )
    });

    let mut decade = low;
    while decade <= high {
        let gx = x(10f64.powf(decade));
        let _ = writeln!(
            svg,
            r##"<line x1="{gx:.1}" y1="{}" x2="{gx:.1}" y2="{bottom}" stroke="#ddd"/><text x="{gx:.1}" y="{}" text-anchor="middle" fill="#666">{}</text>"##,
            TOP - 8.0,
            height - 8.0,
            format_ns(10f64.powf(decade))
        );
        decade += 1.0;
    }
    for floor in results
        .results
        .iter()
        .filter(|r| r.name.starts_with("floor_"))
    {
        let fx = x(floor.ns_per_call);
        let _ = writeln!(
            svg,
            r##"<line x1="{fx:.1}" y1="{}" x2="{fx:.1}" y2="{bottom}" stroke="#264653" stroke-dasharray="3,2"><title>{}: {} ns</title></line>"##,
            TOP - 8.0,
            escape(&floor.name),
            floor.ns_per_call
        );
    }
    for (row, result) in results.results.iter().enumerate() {
        let y = TOP + row as f64 * ROW;
        let color = PATH_COLORS
            .iter()
            .find(|(path, _)| *path == result.path)
            .map_or(PATH_COLORS[3].1, |&(_, color)| color);
        let bar_end = x(result.ns_per_call);
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LABEL_WIDTH - 8.0,
            y + 14.0,
            escape(&result.name)
        );
        let _ = writeln!(
            svg,
            r#"<rect x="{LABEL_WIDTH}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{color}"><title>{}: {} ns/call ({}..{}), {} allocs/call, path {}</title></rect>"#,
            y + 3.0,
            (bar_end - LABEL_WIDTH).max(1.0),
            ROW - 12.0,
            escape(&result.name),
            result.ns_per_call,
            result.ns_per_call_min,
            result.ns_per_call_max,
            result.allocs_per_call,
            escape(&result.path)
        );
        let (whisker_low, whisker_high) = (x(result.ns_per_call_min), x(result.ns_per_call_max));
        let middle = y + 3.0 + (ROW - 12.0) / 2.0;
        let _ = writeln!(
            svg,
            r##"<path d="M{whisker_low:.1} {:.1}V{:.1}M{whisker_low:.1} {middle:.1}H{whisker_high:.1}M{whisker_high:.1} {:.1}V{:.1}" stroke="#222" fill="none"/>"##,
            middle - 3.0,
            middle + 3.0,
            middle - 3.0,
            middle + 3.0
        );
        let mut label = format_ns(result.ns_per_call);
        if let Some(ns) = reference_of(&result.name) {
            let _ = writeln!(
                svg,
                r#"<rect x="{LABEL_WIDTH}" y="{:.1}" width="{:.1}" height="5" fill="{REFERENCE_COLOR}"><title>{}: {ns} ns/call</title></rect>"#,
                y + ROW - 8.0,
                (x(ns) - LABEL_WIDTH).max(1.0),
                escape(reference.map_or("reference", |r| &r.label)),
            );
            let _ = write!(label, " ({:.2}×)", result.ns_per_call / ns);
        }
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            bar_end.max(whisker_high) + 6.0,
            y + 14.0,
            escape(&label),
        );
    }
    svg.push_str("</svg>\n");
    svg
}

/// One legend entry at `x`: its swatch (made for that position) and label; moves `x` on.
fn legend_item(svg: &mut String, x: &mut f64, label: &str, swatch: impl FnOnce(f64) -> String) {
    let _ = writeln!(
        svg,
        r#"{}<text x="{:.1}" y="44">{}</text>"#,
        swatch(*x),
        *x + 18.0,
        escape(label)
    );
    *x += 30.0 + 7.0 * label.len() as f64;
}

fn format_ns(ns: f64) -> String {
    if ns >= 1_000_000.0 {
        format!("{:.1} ms", ns / 1_000_000.0)
    } else if ns >= 1000.0 {
        format!("{:.1} µs", ns / 1000.0)
    } else if ns >= 10.0 {
        format!("{ns:.0} ns")
    } else {
        format!("{ns:.2} ns")
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Results {
        Results {
            mode: "full".to_owned(),
            commit: "abc1234".to_owned(),
            date: "2026-11-23T06:15:55Z".to_owned(),
            v8: "15.2.124.1-rusty".to_owned(),
            results: vec![
                BenchResult::from_samples("op_string", vec![5.6, 4.9, 5.1], 0, 0, 3000, "fast"),
                BenchResult::from_samples(
                    "op_string_owned",
                    vec![30.0, 31.0, 29.0],
                    3000,
                    225000,
                    3000,
                    "slow",
                ),
                BenchResult::from_samples("floor_raw_fast_call", vec![3.0], 0, 0, 1000, "n/a"),
            ],
            pending: vec![Pending {
                name: "op_string_serde".to_owned(),
                why: "needs #[serde]".to_owned(),
            }],
        }
    }

    fn reference() -> Reference {
        Reference {
            label: "deno".to_owned(),
            figures: vec![("op_string".to_owned(), 10.2)],
        }
    }

    #[test]
    fn results_json_has_the_agreed_shape() {
        let json: serde_json::Value =
            serde_json::from_str(&serde_json::to_string(&sample()).unwrap()).unwrap();
        let keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["commit", "date", "mode", "pending", "results", "v8"]);
        let first = &json["results"][0];
        assert_eq!(
            first,
            &serde_json::json!({"name": "op_string", "ns_per_call": 5.1, "ns_per_call_min": 4.9,
                "ns_per_call_max": 5.6, "allocs_per_call": 0.0, "bytes_per_call": 0.0,
                "path": "fast", "calls": 3000})
        );
        assert_eq!(json["results"][1]["allocs_per_call"], 1.0);
        assert_eq!(json["results"][1]["bytes_per_call"], 75.0);
        assert_eq!(
            json["pending"][0],
            serde_json::json!({"name": "op_string_serde", "why": "needs #[serde]"})
        );
    }

    #[test]
    fn table_shows_the_change_and_the_reference_ratio() {
        let mut previous = sample();
        previous.results[0].ns_per_call = 10.2;
        let table = table(&sample(), Some(&previous), Some(&reference()));
        let line = table
            .lines()
            .find(|line| line.starts_with("op_string "))
            .unwrap();
        assert!(line.contains(" -50.0 "), "{line}");
        assert!(line.ends_with("10.20    0.50"), "{line}");
        let line = table
            .lines()
            .find(|line| line.starts_with("op_string_owned"))
            .unwrap();
        assert!(line.contains(" +0.0 "), "{line}");
        assert!(line.ends_with("-       -"), "{line}");
        assert!(table.contains("op_string_serde"));
        assert!(table.contains("pending: needs #[serde]"));
        assert!(table.starts_with("V8 15.2.124.1-rusty, full run, commit abc1234"));
    }

    #[test]
    fn chart_has_bars_whiskers_reference_floors_and_legend() {
        let svg = svg(&sample(), Some(&reference()));
        // Three bars, one reference bar, five legend swatches.
        assert_eq!(svg.matches(r#"<rect x="280""#).count(), 4);
        assert_eq!(
            svg.matches("<path d=").count(),
            4,
            "three whiskers and the legend's"
        );
        assert!(svg.contains(">op_string_owned</text>"));
        assert!(svg.contains("(0.50×)"));
        assert!(svg.contains("stroke-dasharray=\"3,2\"><title>floor_raw_fast_call"));
        for label in [
            "path fast",
            "path slow",
            "path mixed",
            "path n/a",
            "deno",
            "floors",
            "whiskers: min..max",
        ] {
            assert!(svg.contains(&format!(">{label}</text>")), "{label}");
        }
        assert!(svg.ends_with("</svg>\n"));
    }

    #[test]
    fn dates_are_utc() {
        assert_eq!(utc_date(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc_date(1_795_414_555), "2026-11-23T06:15:55Z");
        assert_eq!(utc_date(951_782_400), "2000-02-29T00:00:00Z");
    }
}
