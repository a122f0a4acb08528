//! How every command prints a persistent identity: the packed 64 bits as `0x` and 16 lowercase
//! hex digits — the form of `ScatterId`'s `Display`, which the diff and the editor's panels show —
//! in text and in JSON (a string) alike. Override files keep their decimal `target:` numbers; only
//! what the command line prints goes through [`identity_text`].

/// `bits` as `0x` + 16 lowercase hex digits (`0x0001000000010000`): the runtime's one formatter,
/// which the editor's panels and the diagnostics use too.
pub use stagecraft_runtime::identity::identity_text;

#[cfg(test)]
mod tests {
    use super::*;
    use stagecraft_runtime::identity::{pack_scatter_id, ScatterId};

    #[test]
    fn identities_print_as_the_scatter_ids_display() {
        let id = pack_scatter_id(1, 2, 3, -4, 5).expect("packs");
        assert_eq!(identity_text(id.bits()), id.to_string());
        assert_eq!(identity_text(281_474_976_776_192), "0x0001000000010000");
        assert_eq!(identity_text(0), "0x0000000000000000");
        let parsed = ScatterId::from_bits(281_474_976_776_192).expect("valid");
        assert_eq!(parsed.to_string(), "0x0001000000010000");
    }
}
