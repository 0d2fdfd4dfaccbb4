//! `--rounds N`: the selected benches run in N processes one after another, and each bench
//! keeps the round with the lowest median.
//!
//! Why processes: on the 2-vCPU VMs this runs on, a row can sit in one of two modes for a
//! whole process (BENCHMARKS.md has a row read at twice its time), whatever the
//! address layout, V8's seeds, the CPU or V8's threads; samples inside one process cannot
//! average that out. deno's reference figures are likewise the lower of two runs.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::report::{BenchResult, Pending, Results};

/// What each round is asked to run (the options that select and size the benches).
pub struct RoundArgs<'a> {
    pub filter: Option<&'a str>,
    pub quick: bool,
    pub suite: crate::Suite,
    /// Where the rounds' own results go, one directory each.
    pub out_dir: &'a Path,
}

/// Runs `rounds` processes of this binary and merges their results: per bench, the result
/// of the round with the lowest median, whole (its min..max, allocations and path).
pub fn best_of(
    rounds: u32,
    args: &RoundArgs<'_>,
) -> Result<(Vec<BenchResult>, Vec<Pending>), String> {
    let exe = std::env::current_exe().map_err(|err| format!("cannot find bench-ops: {err}"))?;
    let mut best: Vec<BenchResult> = Vec::new();
    let mut pending = Vec::new();
    for round in 1..=rounds {
        eprintln!("round {round}/{rounds}");
        let dir = args.out_dir.join("rounds").join(round.to_string());
        let mut command = Command::new(&exe);
        command.arg("--out-dir").arg(&dir);
        if let Some(filter) = args.filter {
            command.arg("--filter").arg(filter);
        }
        if args.quick {
            command.arg("--quick");
        }
        if let Some(flag) = args.suite.flag() {
            command.arg(flag);
        }
        // The round's own table would compare it with its previous round: only progress shows.
        let status = command
            .stdout(Stdio::null())
            .status()
            .map_err(|err| format!("cannot run round {round}: {err}"))?;
        if !status.success() {
            return Err(format!("round {round} failed: {status}"));
        }
        let path = dir.join(args.suite.results_file());
        let results = Results::load(&path)
            .ok_or_else(|| format!("round {round} wrote no results at {}", path.display()))?;
        merge(&mut best, results.results);
        pending = results.pending;
    }
    Ok((best, pending))
}

/// Keeps, per bench, the result with the lower median (first-seen order).
fn merge(best: &mut Vec<BenchResult>, round: Vec<BenchResult>) {
    for result in round {
        match best.iter_mut().find(|kept| kept.name == result.name) {
            Some(kept) if result.ns_per_call < kept.ns_per_call => *kept = result,
            Some(_) => {}
            None => best.push(result),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(name: &str, ns: f64) -> BenchResult {
        BenchResult {
            name: name.to_owned(),
            ns_per_call: ns,
            ns_per_call_min: ns,
            ns_per_call_max: ns,
            allocs_per_call: 0.0,
            bytes_per_call: 0.0,
            path: "fast".to_owned(),
            calls: 1,
        }
    }

    #[test]
    fn each_bench_keeps_its_fastest_round() {
        let mut best = Vec::new();
        merge(&mut best, vec![result("a", 5.0), result("b", 9.0)]);
        merge(
            &mut best,
            vec![result("a", 7.0), result("b", 4.0), result("c", 1.0)],
        );
        let kept: Vec<(&str, f64)> = best
            .iter()
            .map(|r| (r.name.as_str(), r.ns_per_call))
            .collect();
        assert_eq!(kept, [("a", 5.0), ("b", 4.0), ("c", 1.0)]);
    }
}
