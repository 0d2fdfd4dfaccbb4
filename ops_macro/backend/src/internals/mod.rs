//! Parsing and checking: everything that can fail, with errors collected in one [`Ctxt`].

pub mod ast;
pub mod attr;
pub mod check;
pub mod classify;
mod ctxt;
pub mod derive_input;
pub mod impl_block;
pub mod lower;
pub mod webidl_input;

pub use ctxt::Ctxt;
