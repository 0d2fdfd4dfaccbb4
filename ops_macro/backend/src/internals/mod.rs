//! Parsing and checking: everything that can fail, with errors collected in one [`Ctxt`].

pub mod ast;
pub mod attr;
pub mod check;
pub mod class;
pub mod classify;
mod ctxt;
pub mod derive;
pub mod lower;

pub use ctxt::Ctxt;
