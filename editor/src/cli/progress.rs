//! The progress bar of a recipe's generation on stderr, shared by `generate` and `cook`: its
//! length in candidates (stages when the plan has none), its message the stage reached.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::service::Progress;

/// A progress bar for one recipe's generation: length in candidates (stages when the plan has
/// none), drawn to `target`.
pub fn progress_bar(recipe: &str, total: Progress, target: ProgressDrawTarget) -> ProgressBar {
    let by_candidates = total.candidates_total > 0;
    let length = if by_candidates {
        total.candidates_total
    } else {
        total.stages_total
    };
    let bar = ProgressBar::with_draw_target(Some(length), target);
    let unit = if by_candidates {
        "candidates"
    } else {
        "stages"
    };
    let template = format!(
        "{{prefix}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} · {{msg}} · {{elapsed}}"
    );
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(format!("recipe {recipe}"));
    bar.set_message(format!("stage 0/{}", total.stages_total));
    bar
}

/// Moves `bar` to `progress`.
pub fn show_progress(bar: &ProgressBar, progress: Progress) {
    let position = if progress.candidates_total > 0 {
        progress.candidates_done
    } else {
        progress.stages_done
    };
    bar.set_position(position);
    bar.set_message(format!(
        "stage {}/{}",
        progress.stages_done, progress.stages_total
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_bar_follows_candidates_then_stages() {
        let total = Progress {
            stages_done: 0,
            stages_total: 3,
            candidates_done: 0,
            candidates_total: 125_000,
        };
        let bar = progress_bar("forest", total, ProgressDrawTarget::hidden());
        assert_eq!(bar.length(), Some(125_000));
        assert_eq!(bar.position(), 0);
        assert_eq!(bar.message(), "stage 0/3");
        show_progress(
            &bar,
            Progress {
                stages_done: 2,
                candidates_done: 100_000,
                ..total
            },
        );
        assert_eq!(bar.position(), 100_000);
        assert_eq!(bar.message(), "stage 2/3");
        assert_eq!(bar.prefix(), "recipe forest");

        // A plan without candidates counts stages.
        let stages_only = Progress {
            candidates_total: 0,
            ..total
        };
        let bar = progress_bar("block", stages_only, ProgressDrawTarget::hidden());
        assert_eq!(bar.length(), Some(3));
        show_progress(
            &bar,
            Progress {
                stages_done: 1,
                ..stages_only
            },
        );
        assert_eq!(bar.position(), 1);
    }
}
