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
pub const MARKER_ATTRIBUTES: &[&str] = &[
    "bigint",
    "number",
    "smi",
    "string",
    "buffer",
    "arraybuffer",
    "from_v8",
    "to_v8",
    "serde",
];

/// How a `#[string]` argument is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StringMode {
    /// `#[string]`: as UTF-8.
    Utf8,
    /// `#[string(onebyte)]`: the one-byte (Latin-1) content as bytes.
    OneByte,
}

/// How a `#[buffer]` argument is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferMode {
    /// `#[buffer]`: borrowed from the Uint8Array.
    View,
    /// `#[buffer(copy)]`: copied into an owned `Vec<u8>` / `Box<[u8]>`.
    Copy,
}

/// Marker attributes found on one argument or on the function (for its return value); each
/// keeps its attribute for error spans.
#[derive(Clone, Debug, Default)]
pub struct Markers {
    /// `#[bigint]`: a 64-bit or pointer-sized integer passed as a BigInt.
    pub bigint: Option<Attribute>,
    /// `#[number]`: a 64-bit or pointer-sized integer passed as a Number.
    pub number: Option<Attribute>,
    /// `#[smi]`: any integer type passed as a small integer.
    pub smi: Option<Attribute>,
    /// `#[string]` / `#[string(onebyte)]`.
    pub string: Option<(Attribute, StringMode)>,
    /// `#[buffer]` / `#[buffer(copy)]`.
    pub buffer: Option<(Attribute, BufferMode)>,
    /// `#[arraybuffer]`.
    pub arraybuffer: Option<Attribute>,
    /// `#[from_v8]` (argument) / `#[to_v8]` (function, for the return value).
    pub v8_trait: Option<Attribute>,
}

impl Markers {
    /// The first marker present, for "this marker does not apply here" errors.
    pub fn any(&self) -> Option<&Attribute> {
        self.bigint
            .as_ref()
            .or(self.number.as_ref())
            .or(self.smi.as_ref())
            .or(self.string.as_ref().map(|(attr, _)| attr))
            .or(self.buffer.as_ref().map(|(attr, _)| attr))
            .or(self.arraybuffer.as_ref())
            .or(self.v8_trait.as_ref())
    }
}

/// Records `attr` in `slot`, or a duplicate error; checks it is a bare word.
fn set_flag(cx: &Ctxt, slot: &mut Option<Attribute>, attr: &Attribute, name: &str) {
    if !matches!(attr.meta, Meta::Path(_)) {
        cx.error_spanned_by(attr, format!("`#[{name}]` takes no arguments"));
    } else if slot.is_some() {
        cx.error_spanned_by(attr, format!("duplicate `#[{name}]`"));
    } else {
        *slot = Some(attr.clone());
    }
}

/// The mode of `#[name]` (`bare`) or `#[name(word)]` (`worded`); `None` if malformed.
fn mode_of<M>(attr: &Attribute, word: &str, bare: M, worded: M) -> Option<M> {
    match &attr.meta {
        Meta::Path(_) => Some(bare),
        _ => single_word(attr)
            .filter(|found| found == word)
            .map(|_| worded),
    }
}

/// Records a moded marker in `slot`, or the error for a malformed or duplicate one.
fn set_mode<M>(
    cx: &Ctxt,
    slot: &mut Option<(Attribute, M)>,
    attr: &Attribute,
    mode: Option<M>,
    bare: &str,
    worded: &str,
) {
    match mode {
        None => cx.error_spanned_by(attr, format!("expected `{bare}` or `{worded}`")),
        Some(_) if slot.is_some() => cx.error_spanned_by(attr, format!("duplicate `{bare}`")),
        Some(mode) => *slot = Some((attr.clone(), mode)),
    }
}

/// The single word inside `#[name(word)]`, if the attribute is of that form.
fn single_word(attr: &Attribute) -> Option<syn::Ident> {
    match &attr.meta {
        Meta::List(list) => syn::parse2::<syn::Ident>(list.tokens.clone()).ok(),
        _ => None,
    }
}

impl Markers {
    /// Reads the marker attributes among `attrs`, recording duplicates and malformed ones.
    pub fn from_attributes(cx: &Ctxt, attrs: &[Attribute]) -> Self {
        let mut markers = Markers::default();
        for attr in attrs {
            let path = attr.path();
            if path.is_ident("bigint") {
                set_flag(cx, &mut markers.bigint, attr, "bigint");
            } else if path.is_ident("number") {
                set_flag(cx, &mut markers.number, attr, "number");
            } else if path.is_ident("smi") {
                set_flag(cx, &mut markers.smi, attr, "smi");
            } else if path.is_ident("arraybuffer") {
                set_flag(cx, &mut markers.arraybuffer, attr, "arraybuffer");
            } else if path.is_ident("from_v8") || path.is_ident("to_v8") {
                let name = if path.is_ident("from_v8") {
                    "from_v8"
                } else {
                    "to_v8"
                };
                set_flag(cx, &mut markers.v8_trait, attr, name);
            } else if path.is_ident("string") {
                let mode = mode_of(attr, "onebyte", StringMode::Utf8, StringMode::OneByte);
                set_mode(
                    cx,
                    &mut markers.string,
                    attr,
                    mode,
                    "#[string]",
                    "#[string(onebyte)]",
                );
            } else if path.is_ident("serde") {
                cx.error_spanned_by(
                    attr,
                    "`#[serde]` is not supported yet: implement `runtime_core::FromV8` for the \
                     argument's type (or `runtime_core::ToV8` for a return) and mark it \
                     `#[from_v8]` (or the function `#[to_v8]`)",
                );
            } else if path.is_ident("buffer") {
                let mode = mode_of(attr, "copy", BufferMode::View, BufferMode::Copy);
                set_mode(
                    cx,
                    &mut markers.buffer,
                    attr,
                    mode,
                    "#[buffer]",
                    "#[buffer(copy)]",
                );
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
