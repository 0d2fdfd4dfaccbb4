// The types a declarations file names: derived types nested, recursive, passed and returned,
// a generic one, a hand-written impl, a serde argument, a class and a `#[cppgc]` type without
// one. Read by the expansion snapshots; `runtime_core/tests/integration/typescript.rs` checks
// that the runtime's declarations of these ops equal what `cargo xtask dts` writes for this file.

/// What an entry is.
#[derive(FromV8, ToV8)]
pub enum Kind {
    File,
    Dir,
}

/// A listing's filter.
#[derive(FromV8)]
pub struct Query {
    prefix: String,
    limit: Option<u32>,
    kind: Kind,
}

/// Metadata: a tree, passed and returned.
#[derive(FromV8, ToV8)]
pub struct Meta {
    owner: String,
    children: Vec<Meta>,
}

/// One entry of a listing.
#[derive(ToV8)]
pub struct Entry {
    key: String,
    size: u32,
    kind: Kind,
    meta: Option<Meta>,
}

/// A generic type: declared `unknown`.
#[derive(ToV8)]
pub struct Page<T> {
    items: Vec<T>,
}

/// A hand-written impl, without a declaration.
pub struct Opaque(bool);

impl<'s> FromV8<'s> for Opaque {
    fn from_v8(
        _scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
    ) -> Result<Self, OpError> {
        Ok(Opaque(value.is_true()))
    }
}

/// Through serde: its fields are not declared.
#[derive(serde::Deserialize)]
pub struct Loose {
    a: u32,
}

/// Lists entries.
#[op]
fn op_list(query: Query) -> Vec<Entry> {
    let kind = query.kind;
    (0..query.limit.unwrap_or(2))
        .map(|size| Entry {
            key: format!("{}{size}", query.prefix),
            size,
            kind: match kind {
                Kind::File => Kind::File,
                Kind::Dir => Kind::Dir,
            },
            meta: None,
        })
        .collect()
}

#[op]
fn op_meta_echo(meta: Meta) -> Meta {
    meta
}

#[op]
fn op_page() -> Page<u32> {
    Page { items: vec![1, 2] }
}

#[op]
fn op_opaque(opaque: Opaque) -> bool {
    opaque.0
}

#[op]
fn op_loose(#[serde] loose: Loose) -> u32 {
    loose.a
}

/// A class whose members name derived types.
pub struct Cursor {
    query: Query,
}

#[op]
impl Cursor {
    #[constructor]
    #[cppgc]
    fn new(query: Query) -> Cursor {
        Cursor { query }
    }

    fn first(&self) -> Option<Entry> {
        op_list(Query {
            prefix: self.query.prefix.clone(),
            limit: Some(1),
            kind: Kind::File,
        })
        .pop()
    }
}

/// A `#[cppgc]` type with no class: JavaScript holds one but cannot make one.
pub struct Lock;

// SAFETY: it holds no traced references.
unsafe impl Trace for Lock {}

#[op]
#[cppgc]
fn op_lock() -> Lock {
    Lock
}
