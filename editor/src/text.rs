//! Short texts shared by the panels and the Viewport.

use stagecraft_runtime::sim::AgentHandle;

/// A handle as the panels and the Viewport write it: `#index.generation`.
pub fn handle_text(handle: AgentHandle) -> String {
    format!("#{}.{}", handle.index, handle.generation)
}
