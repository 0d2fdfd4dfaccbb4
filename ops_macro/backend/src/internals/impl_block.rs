//! `#[op] impl Foo { .. }` parsed into a class (as deno's `#[op2] impl`). Each member becomes an
//! op through the same pipeline as free ops (a hidden function `__Foo_<member>` whose first
//! argument is the receiver, `#[this] &Foo`), so conversions, errors, panics and the fast path
//! are those of ops; `crate::codegen::class_decl` then lists them in `Foo::CLASS`.
//!
//! Members: `#[constructor]` (`new Foo(..)`; returns `Foo`), methods (`&self`), `#[getter]`,
//! `#[setter]`, `#[static_method]` (or any function without a receiver), with `#[fast]` /
//! `#[nofast]` and `#[rename("name")]`. `&mut self` is refused: an instance is shared with
//! JavaScript, which may hold any number of references and re-enter a method.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;

use super::attr::is_marker;
use super::Ctxt;
use crate::ir::{Class, Member, Role};

/// One member, parsed: the parts of its hidden op function.
struct ParsedMember {
    role: Role,
    /// The Rust method (as emitted in the impl block).
    rust_name: syn::Ident,
    /// The JavaScript property name.
    js_name: String,
    /// `fast` / `nofast` for the op attribute.
    op_options: TokenStream,
    /// The hidden op function's parts: markers, generics, arguments, output, call arguments,
    /// whether it is `async`.
    fn_markers: Vec<syn::Attribute>,
    is_async: bool,
    generics: syn::Generics,
    inputs: Vec<syn::FnArg>,
    output: syn::ReturnType,
    call_args: Vec<TokenStream>,
    span: Span,
}

impl ParsedMember {
    /// The hidden op: `fn __Foo_<role>_<name>(#[this] this: &Foo, args..) -> ret { Foo::<name>(this, args..) }`.
    fn op_fn(&self, class: &syn::Ident, class_ty: &syn::Type) -> syn::ItemFn {
        let op_ident = format_ident!("__{}_{}_{}", class, self.role.prefix(), self.rust_name);
        let rust_name = &self.rust_name;
        let (fn_markers, generics, inputs, output, call_args) = (
            &self.fn_markers,
            &self.generics,
            &self.inputs,
            &self.output,
            &self.call_args,
        );
        let asyncness = self.is_async.then(|| quote!(async));
        let await_ = self.is_async.then(|| quote!(.await));
        syn::parse_quote_spanned! {self.span=>
            #(#fn_markers)*
            #[doc(hidden)]
            #[allow(non_snake_case)]
            #asyncness fn #op_ident #generics(#(#inputs),*) #output {
                #class_ty::#rust_name(#(#call_args),*) #await_
            }
        }
    }
}

/// Replaces `Self` in types with the class's own type (the hidden op functions are free).
struct ReplaceSelf<'a>(&'a syn::Type);

impl VisitMut for ReplaceSelf<'_> {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        if let syn::Type::Path(path) = ty {
            if path.qself.is_none() && path.path.is_ident("Self") {
                *ty = self.0.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// The member's own attributes (`#[constructor]`, `#[fast]`, ...), taken off the method.
const MEMBER_ATTRIBUTES: &[&str] = &[
    "constructor",
    "getter",
    "setter",
    "static_method",
    "fast",
    "nofast",
    "rename",
    "required",
    "varargs",
    "validate",
];

fn rename_of(attr: &syn::Attribute) -> syn::Result<String> {
    match &attr.meta {
        syn::Meta::List(list) => Ok(list.parse_args::<syn::LitStr>()?.value()),
        syn::Meta::NameValue(pair) => match &pair.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(name),
                ..
            }) => Ok(name.value()),
            other => Err(syn::Error::new_spanned(
                other,
                "expected `rename(\"name\")`",
            )),
        },
        syn::Meta::Path(path) => Err(syn::Error::new_spanned(path, "expected `rename(\"name\")`")),
    }
}

fn parse_member(
    class_ty: &syn::Type,
    method: &mut syn::ImplItemFn,
    cx: &Ctxt,
) -> Option<ParsedMember> {
    let mut role = None;
    let mut op_options = TokenStream::new();
    let mut required = None;
    let mut js_name = method.sig.ident.to_string();
    let mut validate = None;
    let mut fn_markers = Vec::new();
    for attr in &method.attrs {
        let path = attr.path();
        let set_role = |role_slot: &mut Option<Role>, new: Role| {
            if role_slot.replace(new).is_some() {
                cx.error_spanned_by(
                    attr,
                    "a member is one of `#[constructor]`, `#[getter]`, `#[setter]`, `#[static_method]`",
                );
            }
        };
        if path.is_ident("constructor") {
            set_role(&mut role, Role::Constructor);
        } else if path.is_ident("getter") {
            set_role(&mut role, Role::Getter);
        } else if path.is_ident("setter") {
            set_role(&mut role, Role::Setter);
        } else if path.is_ident("static_method") {
            set_role(&mut role, Role::Static);
        } else if path.is_ident("fast") {
            op_options = quote!(fast);
        } else if path.is_ident("nofast") {
            op_options = quote!(nofast);
        } else if path.is_ident("rename") {
            match rename_of(attr) {
                Ok(name) => js_name = name,
                Err(error) => cx.syn_error(error),
            }
        } else if is_marker(attr) || path.is_ident("doc") {
            // Markers of the return value, and the doc comment (the TypeScript JSDoc).
            fn_markers.push(attr.clone());
        } else if path.is_ident("required") {
            // deno's object_wrap `#[required(n)]`: the op option of the same name.
            match attr.parse_args::<syn::LitInt>() {
                Ok(n) => required = Some(n),
                Err(_) => cx.syn_error(syn::Error::new_spanned(
                    attr,
                    "`#[required(n)]` takes how many arguments a call must pass: `#[required(1)]`",
                )),
            }
        } else if path.is_ident("varargs") {
            cx.syn_error(syn::Error::new_spanned(
                attr,
                "`#[varargs]` is not supported: take the arguments JavaScript may pass as \
                 `Option<T>`s, or one `v8::Local<v8::Value>` (an array of them) and read it",
            ));
        } else if path.is_ident("validate") {
            match &attr.meta {
                syn::Meta::List(list) => validate = Some((attr.clone(), list.tokens.clone())),
                _ => cx.syn_error(syn::Error::new_spanned(
                    attr,
                    "`#[validate(f)]` names the function that checks a call's arguments",
                )),
            }
        }
    }
    method.attrs.retain(|attr| {
        !MEMBER_ATTRIBUTES
            .iter()
            .any(|name| attr.path().is_ident(name))
            && !is_marker(attr)
    });
    let sig = method.sig.clone();
    // (Markers on its arguments stay on the hidden op's, and leave the method below.)
    if !sig
        .generics
        .params
        .iter()
        .all(|param| matches!(param, syn::GenericParam::Lifetime(_)))
    {
        cx.syn_error(syn::Error::new_spanned(
            &sig.generics,
            "a class member cannot be generic: JavaScript calls one function per member",
        ));
        return None;
    }
    let receiver = sig.receiver();
    if let Some(receiver) = receiver {
        if receiver.reference.is_none() {
            cx.syn_error(syn::Error::new_spanned(
                receiver,
                "an instance cannot be moved out of JavaScript: take `&self`",
            ));
            return None;
        }
        if receiver.mutability.is_some() {
            cx.syn_error(syn::Error::new_spanned(
                receiver,
                "`&mut self` is refused: an instance is shared with JavaScript (any number of references, and calls that re-enter), so take `&self` and keep mutable state in `Cell`/`RefCell` fields",
            ));
            return None;
        }
    }
    let role = match (role, receiver.is_some()) {
        (Some(Role::Constructor | Role::Static), true) => {
            cx.syn_error(syn::Error::new_spanned(
                receiver,
                "a constructor or static method has no receiver: remove `&self`",
            ));
            return None;
        }
        (Some(role @ (Role::Getter | Role::Setter)), false) => {
            cx.syn_error(syn::Error::new_spanned(
                &sig.ident,
                if role == Role::Getter {
                    "a getter takes `&self`"
                } else {
                    "a setter takes `&self` and the value"
                },
            ));
            return None;
        }
        (Some(role), _) => role,
        (None, true) => Role::Method,
        (None, false) => Role::Static,
    };
    // The hidden op: `fn __Foo_x(#[this] this: &Foo, args..) -> ret { Foo::x(this, args..) }`.
    let mut inputs: Vec<syn::FnArg> = Vec::new();
    let mut call_args: Vec<TokenStream> = Vec::new();
    let this = format_ident!("__this");
    let is_async = sig.asyncness.is_some();
    if receiver.is_some() {
        if is_async {
            // Held for the method's future, which borrows it across awaits.
            inputs.push(syn::parse_quote!(#[this] #this: ::runtime_core::class::Held<#class_ty>));
            call_args.push(quote!(&#this));
        } else {
            inputs.push(syn::parse_quote!(#[this] #this: &#class_ty));
            call_args.push(quote!(#this));
        }
    }
    for input in sig
        .inputs
        .iter()
        .filter(|input| matches!(input, syn::FnArg::Typed(_)))
    {
        let syn::FnArg::Typed(typed) = input else {
            unreachable!("filtered")
        };
        let syn::Pat::Ident(pat) = &*typed.pat else {
            cx.syn_error(syn::Error::new_spanned(
                &typed.pat,
                "a class member's arguments are plain names (`name: Type`)",
            ));
            return None;
        };
        let ident = &pat.ident;
        let mut typed = typed.clone();
        ReplaceSelf(class_ty).visit_type_mut(&mut typed.ty);
        call_args.push(quote!(#ident));
        inputs.push(syn::FnArg::Typed(typed));
    }
    // Markers on the method's arguments stay on the hidden op's; strip them from the method.
    for input in method.sig.inputs.iter_mut() {
        if let syn::FnArg::Typed(typed) = input {
            typed.attrs.retain(|attr| !is_marker(attr));
        }
    }
    let mut output = sig.output.clone();
    if let syn::ReturnType::Type(_, ty) = &mut output {
        ReplaceSelf(class_ty).visit_type_mut(ty);
    }
    if role == Role::Constructor && !fn_markers.iter().any(|attr| attr.path().is_ident("cppgc")) {
        fn_markers.push(syn::parse_quote!(#[cppgc]));
    }
    if let Some(n) = required {
        op_options = if op_options.is_empty() {
            quote!(required(#n))
        } else {
            quote!(#op_options, required(#n))
        };
    }
    if let Some((attr, check)) = validate {
        if op_options
            .to_string()
            .split(',')
            .any(|option| option.trim() == "fast")
        {
            // deno's fast path skips the check; here a validated member is slow only.
            cx.syn_error(syn::Error::new_spanned(
                attr,
                "`#[validate(f)]` with `#[fast]`: a fast call has no arguments object for `f`, \
                 so it would skip the check; drop `#[fast]` (a validated member takes the slow \
                 path, where the check always runs)",
            ));
        } else {
            op_options = if op_options.is_empty() {
                quote!(validate(#check))
            } else {
                quote!(#op_options, validate(#check))
            };
        }
    }
    Some(ParsedMember {
        role,
        rust_name: sig.ident.clone(),
        js_name,
        op_options,
        fn_markers,
        generics: sig.generics.clone(),
        inputs,
        output,
        call_args,
        is_async,
        span: sig.span(),
    })
}

/// Parses and checks `#[op(<attr>)] impl ..` into its IR, every member's op included.
pub fn lower_class(attr: TokenStream, mut item: syn::ItemImpl) -> Result<Class, Vec<syn::Error>> {
    let cx = Ctxt::new();
    // `trace` (the type implements `Trace` itself), `inherit = Base`, and deno's `base`.
    let mut traced = false;
    let mut base: Option<syn::Type> = None;
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("trace") {
            traced = true;
        } else if meta.path.is_ident("inherit") {
            base = Some(meta.value()?.parse()?);
        } else if !meta.path.is_ident("base") {
            return Err(meta.error(
                "`#[op]` on an impl takes `trace` (the type implements `runtime_core::Trace` itself) and `inherit = Base`",
            ));
        }
        Ok(())
    });
    if let Err(error) = syn::parse::Parser::parse2(parser, attr) {
        cx.syn_error(error);
    }
    // An impl that is no class is said alone: nothing else about it is worth reading.
    let (class_ty, class) = match class_of(&item) {
        Ok(class) => class,
        Err(refusal) => {
            let _ = cx.check();
            return Err(vec![refusal]);
        }
    };
    let mut parsed = Vec::new();
    let mut names_seen: Vec<(String, Role)> = Vec::new();
    for impl_item in item.items.iter_mut() {
        let syn::ImplItem::Fn(method) = impl_item else {
            continue;
        };
        let Some(mut member) = parse_member(&class_ty, method, &cx) else {
            continue;
        };
        // deno lets a getter and a setter (or a static and a method) share a Rust name; Rust
        // does not: the second is emitted as `set_<name>` / `<name>_static`.
        let rust_name = method.sig.ident.to_string();
        if names_seen.iter().any(|(name, _)| *name == rust_name) {
            let renamed = match member.role {
                Role::Setter => format_ident!("set_{}", method.sig.ident),
                _ => format_ident!("{}_{}", method.sig.ident, "static"),
            };
            method.sig.ident = renamed;
        }
        names_seen.push((rust_name, member.role));
        // The hidden op calls the method by its emitted name.
        member.rust_name = method.sig.ident.clone();
        parsed.push(member);
    }
    let constructors = parsed
        .iter()
        .filter(|member| member.role == Role::Constructor)
        .count();
    if constructors > 1 {
        cx.error_at(Span::call_site(), "a class has one `#[constructor]`");
    }
    let name = class.to_string();
    let mut members = Vec::new();
    for member in &parsed {
        let op_fn = member.op_fn(&class, &class_ty);
        let Some(mut op) = super::lower::parse_op_in(&cx, member.op_options.clone(), &op_fn) else {
            continue;
        };
        op.js_name = Some(member.role.op_name(&name, &member.js_name));
        members.push(Member {
            role: member.role,
            js_name: member.js_name.clone(),
            op,
        });
    }
    cx.check()?;
    Ok(Class {
        name,
        ty: class_ty,
        base,
        traced,
        item,
        members,
    })
}

/// The class's type and name, or why the impl cannot be a class.
fn class_of(item: &syn::ItemImpl) -> Result<(syn::Type, syn::Ident), syn::Error> {
    if let Some((_, path, _)) = &item.trait_ {
        return Err(syn::Error::new_spanned(
            path,
            "`#[op]` makes a class of an inherent `impl Foo { .. }`, not of a trait impl",
        ));
    }
    if !item.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &item.generics,
            "a class is one concrete type: `#[op]` does not take generic impls (make one impl per type)",
        ));
    }
    let class_ty = (*item.self_ty).clone();
    let class = match &class_ty {
        syn::Type::Path(path) if path.qself.is_none() => {
            path.path.segments.last().map(|last| last.ident.clone())
        }
        _ => None,
    };
    match class {
        Some(class) => Ok((class_ty, class)),
        None => Err(syn::Error::new_spanned(
            &class_ty,
            "`#[op] impl` takes a named type",
        )),
    }
}

/// Takes this macro's attributes off an impl's methods and their arguments (what is emitted
/// beside the errors when the class does not expand).
pub fn strip_member_attributes(item: &mut syn::ItemImpl) {
    for impl_item in item.items.iter_mut() {
        if let syn::ImplItem::Fn(method) = impl_item {
            method.attrs.retain(|attr| {
                !MEMBER_ATTRIBUTES
                    .iter()
                    .any(|name| attr.path().is_ident(name))
                    && !is_marker(attr)
            });
            for input in method.sig.inputs.iter_mut() {
                if let syn::FnArg::Typed(typed) = input {
                    typed.attrs.retain(|attr| !is_marker(attr));
                }
            }
        }
    }
}
