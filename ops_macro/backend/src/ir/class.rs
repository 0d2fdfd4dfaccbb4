//! A class (`#[op] impl Foo { .. }`) as data: the impl as emitted and its members, each an op
//! of the same IR as free ops (a hidden function whose first argument is the receiver).

use super::Op;

/// What a member is in JavaScript.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// `#[constructor]`: `new Foo(..)`.
    Constructor,
    /// `&self`: `Foo.prototype.name(..)`.
    Method,
    /// `#[getter]`: `get name()`.
    Getter,
    /// `#[setter]`: `set name(value)`.
    Setter,
    /// `#[static_method]`, or no receiver: `Foo.name(..)`.
    Static,
}

impl Role {
    /// In the hidden op's name (`__Foo_get_x`): members of different roles may share a name.
    pub fn prefix(self) -> &'static str {
        match self {
            Role::Constructor => "new",
            Role::Method => "method",
            Role::Getter => "get",
            Role::Setter => "set",
            Role::Static => "static",
        }
    }

    /// The name errors give the member's op: `Foo.prototype.x`, `new Foo`, ...
    pub fn op_name(self, class: &str, js_name: &str) -> String {
        match self {
            Role::Constructor => format!("new {class}"),
            Role::Method => format!("{class}.prototype.{js_name}"),
            Role::Getter => format!("get {class}.prototype.{js_name}"),
            Role::Setter => format!("set {class}.prototype.{js_name}"),
            Role::Static => format!("{class}.{js_name}"),
        }
    }
}

/// One member.
pub struct Member {
    /// What it is.
    pub role: Role,
    /// The JavaScript property name.
    pub js_name: String,
    /// Its op (`op.item` is the hidden function).
    pub op: Op,
}

/// A checked class, ready for code generation.
pub struct Class {
    /// The class name (the type's last segment).
    pub name: String,
    /// The Rust type.
    pub ty: syn::Type,
    /// `inherit = Base`.
    pub base: Option<syn::Type>,
    /// `trace`: the type implements `Trace` itself.
    pub traced: bool,
    /// The impl block as emitted: member attributes taken off, clashing names renamed.
    pub item: syn::ItemImpl,
    /// In the impl's order.
    pub members: Vec<Member>,
}
