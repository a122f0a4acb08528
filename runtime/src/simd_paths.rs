//! Test support: which SIMD builds a test of a multiversioned function exercises on this CPU,
//! said out loud. A test that compares a SIMD build with the portable one calls [`report`] first;
//! a build this CPU cannot run is reported `SKIPPED` (on stderr, shown with `--nocapture` and in
//! a failing test's output), so no test passes silently where its SIMD path never ran.

/// The SIMD builds this CPU runs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Paths {
    /// AVX-512F is available (the AVX-512 builds run).
    pub avx512: bool,
    /// AVX2 is available (the AVX2 builds run).
    pub avx2: bool,
    /// What a dispatched call picks: "AVX-512", "AVX2" or "portable".
    pub best: &'static str,
}

/// Detects the SIMD builds this CPU runs and prints, for the test `what` of the SIMD builds
/// `builds` (of "AVX-512" and "AVX2"), each build tested and each skipped (with a `SKIPPED`
/// marker and the reason).
pub(crate) fn report(what: &str, builds: &[&str]) -> Paths {
    let paths = detect();
    for (name, available) in [("AVX-512", paths.avx512), ("AVX2", paths.avx2)] {
        if !builds.contains(&name) {
            continue;
        }
        if available {
            eprintln!("simd {what}: {name} build tested against the portable one");
        } else {
            eprintln!(
                "SKIPPED simd {what}: {name} build not tested (this CPU lacks it; the dispatched \
                 call runs the {} build, which is tested)",
                paths.best
            );
        }
    }
    paths
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Paths {
    let avx512 = std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("popcnt");
    let avx2 = std::arch::is_x86_feature_detected!("avx2");
    let best = if avx512 {
        "AVX-512"
    } else if avx2 {
        "AVX2"
    } else {
        "portable"
    };
    Paths { avx512, avx2, best }
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> Paths {
    Paths {
        avx512: false,
        avx2: false,
        best: "portable",
    }
}
