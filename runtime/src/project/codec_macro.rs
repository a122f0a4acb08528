//! `record_codec!`: derives [`Decode`](super::decode::Decode) and [`Encode`](super::decode::Encode)
//! for a plain struct written as a RON struct, with fields in declaration order.

/// Implements `Decode` and `Encode` for a struct whose fields are all written by name.
///
/// `field: Type` is required; `field: Type = expr` falls back to `expr` when absent (and is
/// always written, because canonical files spell out their defaults). With `schema CONST` the
/// struct is a top-level document: a `schema` field equal to `CONST` comes first.
macro_rules! record_codec {
    ($ty:ident $name:literal $(schema $schema:path)? {
        $($field:ident : $fty:ty $(= $default:expr)?),* $(,)?
    }) => {
        impl $ty {
            /// The struct's name as written in RON.
            pub const RON_NAME: &'static str = $name;
            /// Every field name a file may write, in canonical order (`schema` first for a
            /// document), so docs and editors can be checked against the decoder.
            pub const FIELD_NAMES: &'static [&'static str] =
                &[$($crate::project::codec_macro::record_codec!(@schema_name $schema),)? $(stringify!($field)),*];
        }

        impl $crate::project::decode::Decode for $ty {
            fn expected() -> String {
                concat!("a `", $name, "(…)` struct").to_owned()
            }

            fn decode(
                node: &$crate::project::node::Node,
                cx: &mut $crate::project::decode::Decoder,
            ) -> Option<Self> {
                let known: &[&str] = Self::FIELD_NAMES;
                let record = cx.record(node, $name, known)?;
                $(
                    let version: Option<u32> = cx.required(&record, "schema");
                    if let (Some(version), Some(at)) = (version, record.get("schema")) {
                        if version != $schema {
                            cx.at($crate::project::node::PathSeg::Field("schema".into()), |cx| {
                                cx.error(
                                    at.span,
                                    format!("unsupported schema version {version}"),
                                    format!("schema version {}", $schema),
                                )
                            });
                        }
                    }
                )?
                $(
                    let $field: Option<$fty> = $crate::project::codec_macro::record_codec!(@field cx, record, $field $(, $default)?);
                )*
                Some($ty { $($field: $field?),* })
            }
        }

        impl $crate::project::decode::Encode for $ty {
            fn encode(&self) -> $crate::project::write::Doc {
                $crate::project::write::Doc::Struct($name, vec![
                    $(("schema", $crate::project::write::Doc::Int(i128::from($schema))),)?
                    $((stringify!($field), $crate::project::decode::Encode::encode(&self.$field))),*
                ])
            }
        }
    };
    // The record's fields as `record_codec!` takes them, then `optional { field: Vec<T>, … }`:
    // list (or `Option`) fields that are read like defaulted ones (empty, `None`) but written
    // only when non-empty (fields added to an existing document kind, so files without them
    // stay canonical byte for byte).
    ($ty:ident $name:literal {
        $($field:ident : $fty:ty $(= $default:expr)?),* $(,)?
    } optional {
        $($ofield:ident : $ofty:ty),* $(,)?
    }) => {
        impl $ty {
            /// The struct's name as written in RON.
            pub const RON_NAME: &'static str = $name;
            /// Every field name a file may write, in canonical order.
            pub const FIELD_NAMES: &'static [&'static str] =
                &[$(stringify!($field),)* $(stringify!($ofield)),*];
        }

        impl $crate::project::decode::Decode for $ty {
            fn expected() -> String {
                concat!("a `", $name, "(…)` struct").to_owned()
            }

            fn decode(
                node: &$crate::project::node::Node,
                cx: &mut $crate::project::decode::Decoder,
            ) -> Option<Self> {
                let known: &[&str] = Self::FIELD_NAMES;
                let record = cx.record(node, $name, known)?;
                $(
                    let $field: Option<$fty> = $crate::project::codec_macro::record_codec!(@field cx, record, $field $(, $default)?);
                )*
                $(
                    let $ofield: Option<$ofty> = cx.defaulted(&record, stringify!($ofield), <$ofty>::default());
                )*
                Some($ty { $($field: $field?,)* $($ofield: $ofield?),* })
            }
        }

        impl $crate::project::decode::Encode for $ty {
            fn encode(&self) -> $crate::project::write::Doc {
                let mut fields = vec![
                    $((stringify!($field), $crate::project::decode::Encode::encode(&self.$field))),*
                ];
                $(
                    if !$crate::project::codec_macro::Omitted::omitted(&self.$ofield) {
                        fields.push((stringify!($ofield), $crate::project::decode::Encode::encode(&self.$ofield)));
                    }
                )*
                $crate::project::write::Doc::Struct($name, fields)
            }
        }
    };
    (@schema_name $schema:path) => { "schema" };
    (@field $cx:ident, $record:ident, $field:ident) => {
        $cx.required(&$record, stringify!($field))
    };
    (@field $cx:ident, $record:ident, $field:ident, $default:expr) => {
        $cx.defaulted(&$record, stringify!($field), $default)
    };
}

pub(crate) use record_codec;

/// A field the `optional` form of `record_codec!` leaves out of a file when it is empty.
pub(crate) trait Omitted {
    /// Whether the value is empty (not written).
    fn omitted(&self) -> bool;
}

impl<T> Omitted for Vec<T> {
    fn omitted(&self) -> bool {
        self.is_empty()
    }
}

impl<T> Omitted for Option<T> {
    fn omitted(&self) -> bool {
        self.is_none()
    }
}
