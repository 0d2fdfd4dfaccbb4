//! Attributes: the `#[op(...)]` options, and the marker attributes on arguments and on the
//! function (`#[bigint]`).

use proc_macro2::{TokenStream, TokenTree};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{Attribute, Meta, Token};

use super::Ctxt;
use crate::ir::{AsyncMode, FastMode, WebIdlArgs};

/// The options inside `#[op(...)]`.
#[derive(Clone, Debug)]
pub struct OpAttrs {
    /// `fast` / `nofast` / neither.
    pub fast: FastMode,
    /// `fast(op_other)`: this op's fast path is another op's (deno's "fast alternative": a
    /// slow op that takes the scope, say, and a fast op with the same JavaScript arguments).
    pub fast_alternative: Option<syn::ExprPath>,
    /// `no_side_effects`.
    pub no_side_effects: bool,
    /// `stack_trace`: when the runtime asks for them, each call's JavaScript stack is handed
    /// to its callback.
    pub stack_trace: bool,
    /// `async(lazy)` / `async(deferred)` (async ops are eager by default).
    pub async_mode: Option<(proc_macro2::Span, AsyncMode)>,
    /// `required(n)`: a call with fewer than `n` arguments is a `TypeError` (deno's).
    pub required: Option<(proc_macro2::Span, u32)>,
    /// `validate(f)`: `f(scope, &args)` checks the call's arguments before anything else reads
    /// them (deno's `#[validate(f)]` on a class member).
    pub validate: Option<syn::ExprPath>,
}

/// The options of `#[op(...)]`, split at top-level commas.
fn split_options(tokens: TokenStream) -> Vec<TokenStream> {
    let mut options = vec![TokenStream::new()];
    for token in tokens {
        match token {
            TokenTree::Punct(punct) if punct.as_char() == ',' => options.push(TokenStream::new()),
            token => options.last_mut().expect("never empty").extend([token]),
        }
    }
    options.retain(|option| !option.is_empty());
    options
}

const OP_OPTIONS: &str = "op options: `fast`, `fast(op_other)`, `nofast`, `no_side_effects`, \
     `stack_trace`, `async`, `async(lazy)`, `async(deferred)`, `required(n)`, `validate(f)`";

impl OpAttrs {
    /// Parses the tokens inside `#[op(...)]`, recording errors in `cx`.
    pub fn from_tokens(cx: &Ctxt, tokens: TokenStream) -> Self {
        let mut attrs = OpAttrs {
            fast: FastMode::Auto,
            fast_alternative: None,
            no_side_effects: false,
            stack_trace: false,
            async_mode: None,
            required: None,
            validate: None,
        };
        // `async(...)` is not a `Meta` to syn (`async` is a keyword): taken out first.
        let mut rest = TokenStream::new();
        for option in split_options(tokens) {
            let mut tokens = option.clone().into_iter();
            match (tokens.next(), tokens.next(), tokens.next()) {
                (Some(TokenTree::Ident(word)), Some(TokenTree::Group(group)), None)
                    if word == "async" =>
                {
                    let mode = match group.stream().to_string().as_str() {
                        "lazy" => Some(AsyncMode::Lazy),
                        "deferred" => Some(AsyncMode::Deferred),
                        "eager" => Some(AsyncMode::Eager),
                        _ => None,
                    };
                    match (mode, attrs.async_mode) {
                        (None, _) => cx.error_spanned_by(
                            &option,
                            "`async(...)` takes `eager` (the default), `lazy` or `deferred`",
                        ),
                        (Some(_), Some(_)) => {
                            cx.error_spanned_by(&option, "duplicate `async(...)`")
                        }
                        (Some(mode), None) => attrs.async_mode = Some((word.span(), mode)),
                    }
                }
                // deno's `#[op2(async)]`: an async op, eager (the default mode).
                (Some(TokenTree::Ident(word)), None, None) if word == "async" => {
                    if attrs.async_mode.is_some() {
                        cx.error_spanned_by(&option, "duplicate `async`");
                    } else {
                        attrs.async_mode = Some((word.span(), AsyncMode::Eager));
                    }
                }
                _ => {
                    rest.extend(option);
                    rest.extend([TokenTree::Punct(proc_macro2::Punct::new(
                        ',',
                        proc_macro2::Spacing::Alone,
                    ))]);
                }
            }
        }
        let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(rest) {
            Ok(metas) => metas,
            Err(err) => {
                cx.syn_error(err);
                return attrs;
            }
        };
        let mut fast_seen: Option<&'static str> = None;
        let mut flags_seen: Vec<&'static str> = Vec::new();
        for meta in &metas {
            let path = meta.path();
            let fast_word = if path.is_ident("fast") {
                Some("fast")
            } else if path.is_ident("nofast") {
                Some("nofast")
            } else {
                None
            };
            match (meta, fast_word) {
                (Meta::Path(_), Some(word)) | (Meta::List(_), Some(word @ "fast")) => {
                    match fast_seen {
                        Some(previous) if previous == word => {
                            cx.error_spanned_by(meta, format!("duplicate op option `{word}`"));
                            continue;
                        }
                        Some(previous) => {
                            cx.error_spanned_by(
                                meta,
                                format!("`{word}` contradicts `{previous}`: choose one"),
                            );
                            continue;
                        }
                        None => fast_seen = Some(word),
                    }
                    attrs.fast = match (meta, word) {
                        (Meta::List(list), _) => {
                            match syn::parse2::<syn::ExprPath>(list.tokens.clone()) {
                                Ok(other) => {
                                    attrs.fast_alternative = Some(other);
                                    FastMode::Disabled
                                }
                                Err(_) => {
                                    cx.error_spanned_by(
                                    list,
                                    "`fast(...)` names the op whose fast path this op uses: `fast(op_other)`",
                                );
                                    FastMode::Auto
                                }
                            }
                        }
                        (_, "fast") => FastMode::Required,
                        _ => FastMode::Disabled,
                    };
                }
                (Meta::List(list), None) if list.path.is_ident("validate") => {
                    match syn::parse2::<syn::ExprPath>(list.tokens.clone()) {
                        Ok(_) if attrs.validate.is_some() => {
                            cx.error_spanned_by(meta, "duplicate op option `validate`")
                        }
                        Ok(check) => attrs.validate = Some(check),
                        Err(_) => cx.error_spanned_by(
                            list,
                            "`validate(f)` names the function that checks a call's arguments: \
                             `fn f(&mut v8::PinScope, &v8::FunctionCallbackArguments) -> Result<(), E>`",
                        ),
                    }
                }
                (Meta::List(list), None) if list.path.is_ident("required") => {
                    match list.parse_args::<syn::LitInt>().and_then(|n| n.base10_parse::<u32>()) {
                        Ok(_) if attrs.required.is_some() => {
                            cx.error_spanned_by(meta, "duplicate op option `required`")
                        }
                        Ok(n) => attrs.required = Some((syn::spanned::Spanned::span(list), n)),
                        Err(_) => cx.error_spanned_by(
                            list,
                            "`required(n)` takes how many arguments a call must pass: `required(2)`",
                        ),
                    }
                }
                (Meta::Path(path), None) => {
                    let flag = if path.is_ident("no_side_effects") {
                        attrs.no_side_effects = true;
                        "no_side_effects"
                    } else if path.is_ident("stack_trace") {
                        attrs.stack_trace = true;
                        "stack_trace"
                    } else {
                        cx.error_spanned_by(path, format!("unknown op option; {OP_OPTIONS}"));
                        continue;
                    };
                    if flags_seen.contains(&flag) {
                        cx.error_spanned_by(path, format!("duplicate op option `{flag}`"));
                    }
                    flags_seen.push(flag);
                }
                _ => cx.error_spanned_by(meta, OP_OPTIONS),
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
    "anybuffer",
    "from_v8",
    "to_v8",
    "scoped",
    "serde",
    "webidl",
    "this",
    "cppgc",
    // deno's `#[meta(sanitizer_details = .., sanitizer_fix = ..)]` on async ops: what its test
    // sanitizer says of an op left pending. opwire has no such sanitizer (a host sees its
    // pending ops through the event loop), so the attribute is accepted and ignored.
    "meta",
];

/// How a `#[string]` argument is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StringMode {
    /// `#[string]`: as UTF-8.
    Utf8,
    /// `#[string(onebyte)]`: the one-byte (Latin-1) content as bytes.
    OneByte,
}

/// How a buffer argument is read: `#[buffer]`, `#[buffer(copy)]`, `#[buffer(detach)]` (and
/// likewise for `#[arraybuffer]` and `#[anybuffer]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferMode {
    /// Bare: borrowed, or kept without a copy (`JsBuffer`).
    View,
    /// `copy`: copied into memory the op owns.
    Copy,
    /// `detach`: taken, JavaScript's ArrayBuffer detached.
    Detach,
}

/// Which buffer marker it is: what JavaScript may pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferMarker {
    /// `#[buffer]`: a view (typed array or DataView).
    View,
    /// `#[arraybuffer]`: an ArrayBuffer.
    ArrayBuffer,
    /// `#[anybuffer]`: either.
    Any,
}

impl BufferMarker {
    /// Every buffer marker.
    pub const ALL: [BufferMarker; 3] = [
        BufferMarker::View,
        BufferMarker::ArrayBuffer,
        BufferMarker::Any,
    ];

    /// The attribute's name.
    pub fn name(self) -> &'static str {
        match self {
            BufferMarker::View => "buffer",
            BufferMarker::ArrayBuffer => "arraybuffer",
            BufferMarker::Any => "anybuffer",
        }
    }
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
    /// `#[buffer]`, `#[arraybuffer]` or `#[anybuffer]`, with its mode.
    pub buffer: Option<(Attribute, BufferMarker, BufferMode)>,
    /// `#[from_v8]` (argument) / `#[to_v8]` (function, for the return value).
    pub v8_trait: Option<Attribute>,
    /// `#[serde]`: through serde (`runtime_core::serde`).
    pub serde: Option<Attribute>,
    /// `#[webidl]` / `#[webidl(default = .., options(..))]`: by WebIDL rules
    /// (`runtime_core::webidl`).
    pub webidl: Option<(Attribute, WebIdlArgs)>,
    /// `#[this]`: the receiver of a class method (written by `#[op] impl`).
    pub this: Option<Attribute>,
    /// `#[cppgc]`: an instance of a class (`#[op] impl`).
    pub cppgc: Option<Attribute>,
}

impl Markers {
    /// The first marker present, for "this marker does not apply here" errors.
    pub fn any(&self) -> Option<&Attribute> {
        self.bigint
            .as_ref()
            .or(self.number.as_ref())
            .or(self.smi.as_ref())
            .or(self.string.as_ref().map(|(attr, _)| attr))
            .or(self.buffer.as_ref().map(|(attr, _, _)| attr))
            .or(self.v8_trait.as_ref())
            .or(self.serde.as_ref())
            .or(self.webidl.as_ref().map(|(attr, _)| attr))
            .or(self.this.as_ref())
            .or(self.cppgc.as_ref())
    }
}

/// Parses `#[webidl(..)]`.
fn webidl_args(attr: &Attribute) -> syn::Result<WebIdlArgs> {
    let mut args = WebIdlArgs::default();
    if matches!(attr.meta, Meta::Path(_)) {
        return Ok(args);
    }
    attr.parse_nested_meta(|meta| {
        if meta.path.is_ident("default") {
            if args.default.is_some() {
                return Err(meta.error("duplicate `default`"));
            }
            args.default = Some(meta.value()?.parse()?);
            Ok(())
        } else if meta.path.is_ident("options") {
            if !args.options.is_empty() {
                return Err(meta.error("duplicate `options`"));
            }
            meta.parse_nested_meta(|option| {
                let name = option.path.require_ident()?.clone();
                args.options.push((name, option.value()?.parse()?));
                Ok(())
            })
        } else {
            Err(meta.error(
                "unknown `#[webidl]` argument: write `default = value` (when JavaScript \
                 passes `undefined`) or `options(name = value, ..)` (e.g. `options(clamp = \
                 true)`)",
            ))
        }
    })?;
    Ok(args)
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

/// Records a buffer marker and its mode, or the error for a malformed or second one.
fn set_buffer(
    cx: &Ctxt,
    slot: &mut Option<(Attribute, BufferMarker, BufferMode)>,
    attr: &Attribute,
    marker: BufferMarker,
) {
    let name = marker.name();
    let mode = match &attr.meta {
        Meta::Path(_) => Some(BufferMode::View),
        _ => single_word(attr).and_then(|word| match word.to_string().as_str() {
            "copy" => Some(BufferMode::Copy),
            "detach" => Some(BufferMode::Detach),
            _ => None,
        }),
    };
    match mode {
        None => cx.error_spanned_by(
            attr,
            format!("expected `#[{name}]`, `#[{name}(copy)]` or `#[{name}(detach)]`"),
        ),
        Some(_) if slot.is_some() => cx.error_spanned_by(
            attr,
            "one buffer marker per argument: `#[buffer]`, `#[arraybuffer]` or `#[anybuffer]`",
        ),
        Some(mode) => *slot = Some((attr.clone(), marker, mode)),
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
            } else if let Some(marker) = BufferMarker::ALL
                .into_iter()
                .find(|marker| path.is_ident(marker.name()))
            {
                set_buffer(cx, &mut markers.buffer, attr, marker);
            } else if path.is_ident("from_v8") || path.is_ident("to_v8") || path.is_ident("scoped")
            {
                // (`#[scoped]` is deno's spelling of a `FromV8` argument.)
                let name = if path.is_ident("from_v8") {
                    "from_v8"
                } else if path.is_ident("to_v8") {
                    "to_v8"
                } else {
                    "scoped"
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
                set_flag(cx, &mut markers.serde, attr, "serde");
            } else if path.is_ident("webidl") {
                if markers.webidl.is_some() {
                    cx.error_spanned_by(attr, "duplicate `#[webidl]`");
                } else {
                    match webidl_args(attr) {
                        Ok(args) => markers.webidl = Some((attr.clone(), args)),
                        Err(error) => cx.syn_error(error),
                    }
                }
            } else if path.is_ident("this") {
                set_flag(cx, &mut markers.this, attr, "this");
            } else if path.is_ident("cppgc") {
                set_flag(cx, &mut markers.cppgc, attr, "cppgc");
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
