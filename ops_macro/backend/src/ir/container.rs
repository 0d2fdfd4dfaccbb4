//! The derives' IR: a container (struct or enum) with each field's key and rules decided
//! (`crate::internals::derive_input` parses it from `#[v8(...)]`, `#[from_v8(...)]` and
//! `#[to_v8(...)]`).

/// Which derive.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    From,
    To,
}

pub struct Container {
    pub ident: syn::Ident,
    pub generics: syn::Generics,
    /// The Rust name, for errors.
    pub type_name: String,
    pub body: Body,
    /// The type's doc comment, line by line (its TypeScript declaration's JSDoc).
    pub docs: Vec<String>,
}

pub enum Body {
    Struct(Shape),
    Enum { repr: Repr, variants: Vec<Variant> },
}

/// Fields of a struct or variant.
pub enum Shape {
    /// An object, one property per field.
    Named(Vec<Field>),
    /// The field itself (transparent).
    Newtype(Box<Field>),
    /// An array of the fields.
    Tuple(Vec<Field>),
    /// `null` (a struct); just the tag (a variant).
    Unit,
}

pub struct Field {
    /// Where it is in the Rust value (`a`, `0`).
    pub member: syn::Member,
    /// The local it is bound to when taken apart (`v0`).
    pub binding: syn::Ident,
    pub ty: syn::Type,
    /// The property name: `rename`, else the field's name in camelCase (as deno).
    pub key: String,
    /// When the property is missing or `undefined`.
    pub missing: Missing,
    /// `serde`: converted through `runtime_core::serde`.
    pub serde: bool,
    /// `skip_if = path` (`ToV8`): left out when `path(&field)` is true.
    pub skip_if: Option<syn::Expr>,
}

pub enum Missing {
    Required,
    /// An `Option` field: `None`.
    None,
    /// `default = expr`.
    Expr(Box<syn::Expr>),
    /// `default` alone: `Default::default()`.
    Default,
}

pub struct Variant {
    pub ident: syn::Ident,
    /// The variant's name in JavaScript: `rename`, else camelCase (as deno).
    pub key: String,
    pub shape: Shape,
}

/// How an enum's variants are told apart (serde's forms, and deno's).
pub enum Repr {
    /// A unit variant is its name; others `{name: body}`.
    External,
    /// `tag = "type"`: `{type: name, ...fields}`.
    Internal { tag: String },
    /// `tag = "t", content = "c"`: `{t: name, c: body}`.
    Adjacent { tag: String, content: String },
    /// `untagged`: the body alone (`null` for a unit variant); reading tries each in order.
    Untagged,
}
