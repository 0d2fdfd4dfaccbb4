//! One op per row of the kind table, generated: `testdata/every_kind.rs` (written by `cargo
//! xtask docs`, checked current by a test) holds an op taking each argument kind and an op
//! returning each return kind, with a JavaScript call and the result it must give.
//! `runtime_core/tests/integration/every_kind.rs` compiles them all and runs each on both paths, as deno
//! does for the rows of `valid_args.md`.

use crate::ir::{ArgKind, BigIntType, BufferSource, LocalType, NumberType, PtrTarget, RetKind};

/// How one row is exercised: the op's markers, its type, and what JavaScript passes.
struct ArgExample {
    markers: &'static str,
    ty: String,
    /// `None`: not passed by JavaScript.
    js: Option<String>,
}

fn buffer_js(source: BufferSource) -> &'static str {
    match source {
        BufferSource::View | BufferSource::Any => "new Uint8Array(2)",
        BufferSource::ArrayBuffer => "new ArrayBuffer(2)",
    }
}

/// How one argument row is exercised by a free op (`None`: a kind only methods have).
fn arg_example(kind: ArgKind) -> Option<ArgExample> {
    let example = |markers, ty: &str, js: &str| ArgExample {
        markers,
        ty: ty.to_owned(),
        js: Some(js.to_owned()),
    };
    let hidden = |ty: &str| ArgExample {
        markers: "",
        ty: ty.to_owned(),
        js: None,
    };
    let slice =
        |mutable: bool, elem: &str| format!("&{}[{elem}]", if mutable { "mut " } else { "" });
    Some(match kind {
        ArgKind::Bool => example("", "bool", "true"),
        ArgKind::Number(number) if number.is_wide() => example("#[number]", number.name(), "2"),
        ArgKind::Number(number) => example("", number.name(), "2"),
        ArgKind::Smi => example("#[smi]", "ResourceId", "2"),
        ArgKind::BigInt(bigint) => example("#[bigint]", bigint.name(), "2n"),
        ArgKind::Str => example("#[string]", "&str", "'s'"),
        ArgKind::CowStr => example("#[string]", "Cow<str>", "'s'"),
        ArgKind::String => example("#[string]", "String", "'s'"),
        ArgKind::OneByte => example("#[string(onebyte)]", "Cow<[u8]>", "'s'"),
        ArgKind::ByteString => example("", "ByteString", "'s'"),
        ArgKind::Buffer { mutable } => {
            example("#[buffer]", &slice(mutable, "u8"), "new Uint8Array(2)")
        }
        ArgKind::BufferCopy => example("#[buffer(copy)]", "bytes::Bytes", "new Uint8Array(2)"),
        ArgKind::Typed { elem, mutable } => example(
            "#[buffer]",
            &slice(mutable, elem.name()),
            &format!("new {}(2)", elem.array()),
        ),
        ArgKind::TypedCopy { elem, boxed } => example(
            "#[buffer(copy)]",
            &if boxed {
                format!("Box<[{}]>", elem.name())
            } else {
                format!("Vec<{}>", elem.name())
            },
            &format!("new {}(2)", elem.array()),
        ),
        ArgKind::ArrayBuffer { mutable } => example(
            "#[arraybuffer]",
            &slice(mutable, "u8"),
            "new ArrayBuffer(2)",
        ),
        ArgKind::AnyBuffer { mutable } => {
            example("#[anybuffer]", &slice(mutable, "u8"), "new ArrayBuffer(2)")
        }
        ArgKind::ArrayBufferCopy => {
            example("#[arraybuffer(copy)]", "Box<[u8]>", "new ArrayBuffer(2)")
        }
        ArgKind::BufferPtr { mutable, target } => {
            let pointer = if mutable { "*mut" } else { "*const" };
            match target {
                PtrTarget::View => {
                    example("#[buffer]", &format!("{pointer} u8"), "new Uint8Array(2)")
                }
                PtrTarget::ArrayBuffer => example(
                    "#[arraybuffer]",
                    &format!("{pointer} u8"),
                    "new ArrayBuffer(2)",
                ),
                PtrTarget::Typed(elem) => example(
                    "#[buffer]",
                    &format!("{pointer} {}", elem.name()),
                    &format!("new {}(2)", elem.array()),
                ),
            }
        }
        ArgKind::JsBuffer(source) => example(source.attribute(), "JsBuffer", buffer_js(source)),
        ArgKind::TypedJsBuffer(elem) => example(
            "#[buffer]",
            &format!("V8Slice<{}>", elem.name()),
            &format!("new {}(2)", elem.array()),
        ),
        ArgKind::Detached(source) => example(
            match source {
                BufferSource::View => "#[buffer(detach)]",
                BufferSource::ArrayBuffer => "#[arraybuffer(detach)]",
                BufferSource::Any => "#[anybuffer(detach)]",
            },
            "DetachedBuffer",
            buffer_js(source),
        ),
        ArgKind::Local { ty, by_ref } => example(
            "",
            &if by_ref {
                format!("&v8::{}", ty.name())
            } else {
                format!("v8::Local<v8::{}>", ty.name())
            },
            ty.sample(),
        ),
        ArgKind::Global(ty) => example("", &format!("v8::Global<v8::{}>", ty.name()), ty.sample()),
        ArgKind::External { mutable } => example(
            "",
            if mutable {
                "*mut c_void"
            } else {
                "*const c_void"
            },
            LocalType::External.sample(),
        ),
        ArgKind::FromV8 => example("#[from_v8]", "Sample", "2"),
        // (A string: the value its fast path takes.)
        ArgKind::Serde => example("#[serde]", "String", "'s'"),
        ArgKind::WebIdl => example("#[webidl]", "u8", "258"),
        // Only a method has a receiver: `runtime_core/tests/integration/classes.rs` runs it.
        ArgKind::Receiver | ArgKind::Held { receiver: true } => return None,
        ArgKind::Held { receiver: false } => {
            example("#[cppgc]", "Held<Widget>", "new ops.Widget()")
        }
        ArgKind::Cppgc => example("#[cppgc]", "&Widget", "new ops.Widget()"),
        ArgKind::OpStateRef => hidden("&OpState"),
        ArgKind::OpStateMut => hidden("&mut OpState"),
        ArgKind::OpStateRc => hidden("Rc<RefCell<OpState>>"),
        ArgKind::Scope => hidden("&mut v8::PinScope"),
        ArgKind::Isolate => hidden("&mut v8::Isolate"),
    })
}

/// How one return row is exercised: the function's markers, whether it takes the scope, the
/// type, the value, and what JavaScript's `describe` must say of it.
struct RetExample {
    markers: &'static str,
    scoped: bool,
    ty: String,
    value: &'static str,
    described: &'static str,
}

fn ret_example(kind: RetKind) -> RetExample {
    let example = |markers, ty: &str, value, described| RetExample {
        markers,
        scoped: false,
        ty: ty.to_owned(),
        value,
        described,
    };
    match kind {
        RetKind::Unit => example("", "()", "()", "undefined undefined"),
        RetKind::Bool => example("", "bool", "true", "boolean true"),
        RetKind::Number(number) if number.is_wide() => {
            example("#[number]", number.name(), "2", "number 2")
        }
        RetKind::Number(NumberType::F32 | NumberType::F64) => {
            let ty = match kind {
                RetKind::Number(number) => number.name(),
                _ => unreachable!(),
            };
            example("", ty, "2.5", "number 2.5")
        }
        RetKind::Number(number) => example("", number.name(), "2", "number 2"),
        RetKind::Smi => example("#[smi]", "ResourceId", "2", "number 2"),
        RetKind::BigInt(BigIntType::I64 | BigIntType::Isize) => {
            let ty = match kind {
                RetKind::BigInt(bigint) => bigint.name(),
                _ => unreachable!(),
            };
            example("#[bigint]", ty, "-2", "bigint -2n")
        }
        RetKind::BigInt(bigint) => example("#[bigint]", bigint.name(), "2", "bigint 2n"),
        RetKind::String => example("#[string]", "String", "String::from(\"s\")", "string \"s\""),
        RetKind::StaticString => example("#[string]", "&'static str", "\"s\"", "string \"s\""),
        RetKind::OneByte => example(
            "#[string(onebyte)]",
            "Vec<u8>",
            "vec![104, 105]",
            "string \"hi\"",
        ),
        RetKind::Buffer => example("#[buffer]", "Vec<u16>", "vec![1, 2]", "object 1,2"),
        RetKind::ArrayBuffer => example(
            "#[arraybuffer]",
            "Vec<u8>",
            "vec![1]",
            "object [object ArrayBuffer]",
        ),
        RetKind::External => example(
            "",
            "*const c_void",
            "std::ptr::addr_of!(SAMPLE_BYTE).cast()",
            "object (no string)",
        ),
        RetKind::Local => RetExample {
            scoped: true,
            ..example(
                "",
                "v8::Local<'s, v8::String>",
                "v8::String::new(scope, \"s\").unwrap()",
                "string \"s\"",
            )
        },
        RetKind::Global => RetExample {
            scoped: true,
            ..example(
                "",
                "v8::Global<v8::String>",
                "{ let s = v8::String::new(scope, \"s\").unwrap(); v8::Global::new(scope, s) }",
                "string \"s\"",
            )
        },
        RetKind::ToV8 => example("#[to_v8]", "Sample", "Sample(2.0)", "number 2"),
        RetKind::Serde => example("#[serde]", "Vec<u8>", "vec![2]", "object 2"),
        RetKind::Cppgc => example("#[cppgc]", "Widget", "Widget", "object [object Widget]"),
    }
}

/// The source of `testdata/every_kind.rs`: one op per argument and return row, and `ROWS`, each
/// op's JavaScript arguments and the `describe`d result it must give on both paths.
pub fn every_kind_source() -> String {
    let mut ops = String::new();
    let mut rows = String::new();
    let mut decls = String::new();
    for (index, kind) in ArgKind::examples().into_iter().enumerate() {
        let Some(example) = arg_example(kind) else {
            continue;
        };
        let name = format!("arg_{index}");
        ops.push_str(&format!(
            "/// `{}`\n#[op]\nfn {name}({} x: {}) -> u32 {{\n    let _ = x;\n    7\n}}\n\n",
            kind.spelling(),
            example.markers,
            example.ty
        ));
        rows.push_str(&format!(
            "    ({name:?}, {:?}, \"number 7\"),\n",
            example.js.unwrap_or_default()
        ));
        decls.push_str(&format!("        {name}::DECL,\n"));
    }
    for (index, kind) in RetKind::examples().into_iter().enumerate() {
        let example = ret_example(kind);
        let name = format!("ret_{index}");
        let (lifetime, params) = if example.scoped {
            ("<'s>", "scope: &mut v8::PinScope<'s, '_>")
        } else {
            ("", "")
        };
        ops.push_str(&format!(
            "/// `{}`\n#[op]\n{}\nfn {name}{lifetime}({params}) -> {} {{\n    {}\n}}\n\n",
            kind.spellings().join("`, `"),
            example.markers,
            example.ty,
            example.value
        ));
        rows.push_str(&format!("    ({name:?}, \"\", {:?}),\n", example.described));
        decls.push_str(&format!("        {name}::DECL,\n"));
    }
    let source = format!(
        "{ops}\
         /// Each op, the JavaScript arguments it is called with, and what `describe` says of the\n\
         /// result.\n\
         pub const ROWS: &[(&str, &str, &str)] = &[\n{rows}];\n\n\
         /// Every op above, in `ROWS` order.\n\
         pub fn every_decl() -> Vec<runtime_core::OpDecl> {{\n    vec![\n{decls}    ]\n}}\n"
    );
    let file = syn::parse_file(&source).expect("the generated ops parse");
    format!(
        "// Generated by `cargo xtask docs` from the kind table (ops_macro/backend/src/examples.rs):\n\
         // one op per argument and return kind. Do not edit.\n\n{}",
        prettyplease::unparse(&file)
    )
}
