//! `#[derive(WebIDL)]`'s IR: a dictionary with its members in the order they are read, or an
//! enumeration with each value's string (`crate::internals::webidl_input` parses it).

use proc_macro2::TokenStream;

/// A dictionary member.
pub struct Member {
    /// The field.
    pub ident: syn::Ident,
    /// Its type.
    pub ty: syn::Type,
    /// The JavaScript name.
    pub key: String,
    /// When `undefined`: `Some(expr)`, or `None` (required).
    pub default: Option<TokenStream>,
    /// `#[options(name = value, ...)]`.
    pub options: Vec<(syn::Ident, syn::Expr)>,
}

/// A `#[webidl(dictionary)]` struct.
pub struct Dictionary {
    /// The type.
    pub ident: syn::Ident,
    /// Its name, for errors.
    pub name: String,
    /// In the order they are read (by key).
    pub members: Vec<Member>,
}

/// A `#[webidl(enum)]` enum.
pub struct Enumeration {
    /// The type.
    pub ident: syn::Ident,
    /// Its name, for errors.
    pub name: String,
    /// Each variant and its WebIDL string.
    pub values: Vec<(syn::Ident, String)>,
}

/// What `#[derive(WebIDL)]` defines.
pub enum Definition {
    /// A dictionary.
    Dictionary(Dictionary),
    /// An enum.
    Enumeration(Enumeration),
}
