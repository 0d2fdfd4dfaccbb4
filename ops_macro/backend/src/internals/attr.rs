//! Attributes: the `#[op(...)]` options, and the marker attributes on arguments and on the
//! function (`#[bigint]`).

use proc_macro2::TokenStream;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Attribute, Meta, Token};

use super::Ctxt;

/// Whether the op gets a fast path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastMode {
    /// Inferred from the signature (`#[op]`).
    Auto,
    /// Demanded (`#[op(fast)]`): an error if the signature cannot be fast.
    Required,
    /// Refused (`#[op(nofast)]`).
    Disabled,
}

/// The options inside `#[op(...)]`.
#[derive(Clone, Copy, Debug)]
pub struct OpAttrs {
    /// `fast` / `nofast` / neither.
    pub fast: FastMode,
    /// `no_side_effects`.
    pub no_side_effects: bool,
}

impl OpAttrs {
    /// Parses the tokens inside `#[op(...)]`, recording errors in `cx`.
    pub fn from_tokens(cx: &Ctxt, tokens: TokenStream) -> Self {
        let mut attrs = OpAttrs {
            fast: FastMode::Auto,
            no_side_effects: false,
        };
        let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(tokens) {
            Ok(metas) => metas,
            Err(err) => {
                cx.syn_error(err);
                return attrs;
            }
        };
        let mut fast_seen: Option<&'static str> = None;
        let mut no_side_effects_seen = false;
        for meta in &metas {
            let Meta::Path(path) = meta else {
                cx.error_spanned_by(
                    meta,
                    "op options are bare words: `fast`, `nofast`, `no_side_effects`",
                );
                continue;
            };
            if path.is_ident("fast") || path.is_ident("nofast") {
                let word = if path.is_ident("fast") {
                    "fast"
                } else {
                    "nofast"
                };
                match fast_seen {
                    Some(previous) if previous == word => {
                        cx.error_spanned_by(path, format!("duplicate op option `{word}`"))
                    }
                    Some(previous) => cx.error_spanned_by(
                        path,
                        format!("`{word}` contradicts `{previous}`: choose one"),
                    ),
                    None => {
                        fast_seen = Some(word);
                        attrs.fast = if word == "fast" {
                            FastMode::Required
                        } else {
                            FastMode::Disabled
                        };
                    }
                }
            } else if path.is_ident("no_side_effects") {
                if no_side_effects_seen {
                    cx.error_spanned_by(path, "duplicate op option `no_side_effects`");
                }
                no_side_effects_seen = true;
                attrs.no_side_effects = true;
            } else {
                cx.error_spanned_by(
                    path,
                    "unknown op option; expected `fast`, `nofast` or `no_side_effects`",
                );
            }
        }
        attrs
    }
}

/// The marker attributes this macro reads on an argument or on the function, by name.
pub const MARKER_ATTRIBUTES: &[&str] = &["bigint", "string"];

/// How a `#[string]` argument is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StringMode {
    /// `#[string]`: as UTF-8.
    Utf8,
    /// `#[string(onebyte)]`: the one-byte (Latin-1) content as bytes.
    OneByte,
}

/// Marker attributes found on one argument or on the function (for its return value); each
/// keeps its attribute for error spans.
#[derive(Clone, Debug, Default)]
pub struct Markers {
    /// `#[bigint]`: a 64-bit integer passed as a BigInt.
    pub bigint: Option<Attribute>,
    /// `#[string]` / `#[string(onebyte)]`.
    pub string: Option<(Attribute, StringMode)>,
}

impl Markers {
    /// Reads the marker attributes among `attrs`, recording duplicates and malformed ones.
    pub fn from_attributes(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut markers = Markers::default();
        for attr in attrs {
            if attr.path().is_ident("bigint") {
                if !matches!(attr.meta, Meta::Path(_)) {
                    cx.error_spanned_by(attr, "`#[bigint]` takes no arguments");
                } else if markers.bigint.is_some() {
                    cx.error_spanned_by(attr, "duplicate `#[bigint]`");
                } else {
                    markers.bigint = Some(attr.clone());
                }
            } else if attr.path().is_ident("string") {
                let mode = match &attr.meta {
                    Meta::Path(_) => Some(StringMode::Utf8),
                    Meta::List(list) => match syn::parse2::<syn::Ident>(list.tokens.clone()) {
                        Ok(word) if word == "onebyte" => Some(StringMode::OneByte),
                        _ => None,
                    },
                    Meta::NameValue(_) => None,
                };
                match mode {
                    None => {
                        cx.error_spanned_by(attr, "expected `#[string]` or `#[string(onebyte)]`")
                    }
                    Some(_) if markers.string.is_some() => {
                        cx.error_spanned_by(attr, "duplicate `#[string]`")
                    }
                    Some(mode) => markers.string = Some((attr.clone(), mode)),
                }
            }
        }
        markers
    }
}

/// Whether `attr` is one this macro consumes (and strips from the emitted function).
pub fn is_marker(attr: &Attribute) -> bool {
    MARKER_ATTRIBUTES
        .iter()
        .any(|name| attr.path().is_ident(name))
}
