//! `params!`: a model's scenario keys declared once. Each parameter is one entry (its
//! doc line, its scenario key, the field it sets, its kind and its bounds); from the
//! list the macro generates the serde keys struct (`deny_unknown_fields`), its
//! `Keys::build` into the model's parameters, their `Check` (bounds, with errors naming
//! `path.<key>`), and `Keys::table()`, the rows of the model's Parameters table in the
//! docs. Defaults are the model's own: `Default` (or the base sets named by `base` and
//! `sets`), which the table shows. ARCHITECTURE.md, "Declaring parameters", has the
//! syntax.

/// See the module's doc and ARCHITECTURE.md, "Declaring parameters".
#[macro_export]
macro_rules! params {
    // The header, then the entries.
    (
        $(#[$meta:meta])*
        pub struct $Keys:ident => $P:ty {
            $( sets: [ $( $set:literal => $setv:expr ),+ $(,)? ], )?
            $( base: $base:path, )?
            $( build_more: $build_more:path, )?
            $( check_more: $check_more:path, )?
        }
        $($entries:tt)*
    ) => {
        $crate::params!(@entry
            [ [$(#[$meta])*] $Keys [$P] [$( [ $( ($set, $setv) ),+ ] )?] [$($base)?] [$($build_more)?] [$($check_more)?] ]
            []
            $($entries)*
        );
    };

    // `key => field: Kind, bound;` (the key sets a field of another name, or a field of
    // a field: `alpha => rcp.alpha`)
    (@entry $hdr:tt [$($done:tt)*]
        $(#[doc = $doc:literal])* $key:ident => $($field:ident).+ : $kind:ty , $bound:expr $(, shown $shown:literal)? ; $($rest:tt)*
    ) => {
        $crate::params!(@entry $hdr [$($done)* { auto [$($doc)*] $key [$($field).+] [$kind] [$bound] [$($shown)?] }] $($rest)*);
    };
    // `key: by_hand(KeyType, "type", "default", "bounds");` (read by `build_more`)
    (@entry $hdr:tt [$($done:tt)*]
        $(#[doc = $doc:literal])* $key:ident : by_hand($kt:ty, $unit:literal, $shown:literal, $btext:literal) ; $($rest:tt)*
    ) => {
        $crate::params!(@entry $hdr [$($done)* { by_hand [$($doc)*] $key [$key] [$kt] [($unit, $btext)] [$shown] }] $($rest)*);
    };

    // `key: Kind, bound;`
    (@entry $hdr:tt [$($done:tt)*]
        $(#[doc = $doc:literal])* $key:ident : $kind:ty , $bound:expr $(, shown $shown:literal)? ; $($rest:tt)*
    ) => {
        $crate::params!(@entry $hdr [$($done)* { auto [$($doc)*] $key [$key] [$kind] [$bound] [$($shown)?] }] $($rest)*);
    };
    // Everything read: generate.
    (@entry
        [ [$(#[$meta:meta])*] $Keys:ident [$P:ty] [$( [ $( ($set:literal, $setv:expr) ),+ ] )?] [$($base:path)?] [$($build_more:path)?] [$($check_more:path)?] ]
        [$( { $tag:ident [$($doc:literal)*] $key:ident $field:tt [$kind:ty] [$($bound:tt)*] [$($shown:literal)?] } )*]
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $Keys {
            $( $(#[doc = $doc])* pub $key: Option<$crate::params!(@key $tag $kind)>, )*
        }

        impl $Keys {
            /// `p` with each key given (then `build_more`) applied: `Keys::build` from
            /// the base set, or another base (a variant's wrapper keys).
            #[allow(unused_mut, dead_code)]
            pub fn build_onto(&self, mut p: $P, path: &str, ctx: &$crate::keys::KeyCtx) -> $crate::error::Result<$P> {
                let keys = self;
                let _ = ctx;
                $( $crate::params!(@build $tag keys p path ctx $key $field [$kind] [$($bound)*]); )*
                $( $build_more(keys, &mut p, path, ctx)?; )?
                Ok(p)
            }
        }

        impl $crate::keys::Keys for $Keys {
            type Out = $P;
            fn build(&self, path: &str, ctx: &$crate::keys::KeyCtx) -> $crate::error::Result<$P> {
                let _ = ctx;
                let p: $P = $crate::params!(@or [$( $base(self, path, ctx)? )?] [<$P as Default>::default()]);
                self.build_onto(p, path, ctx)
            }
        }

        impl $crate::keys::Check for $P {
            fn check(&self, path: &str, ctx: &$crate::keys::KeyCtx) -> $crate::error::Result<()> {
                let p = self;
                let _ = (p, path, ctx);
                $( $crate::params!(@check $tag p path $key $field [$kind] [$($bound)*]); )*
                $( $check_more(p, path, ctx)?; )?
                Ok(())
            }
        }

        impl $crate::keys::Declared for $Keys {
            fn table() -> $crate::keys::kind::Table {
                let sets: Vec<(&'static str, $P)> =
                    $crate::params!(@or [$( vec![$( ($set, $setv) ),+] )?] [vec![("default", <$P as Default>::default())]]);
                let _ = &sets;
                $crate::keys::kind::Table {
                    sets: sets.iter().map(|s| s.0).collect(),
                    rows: vec![ $( $crate::params!(@row $tag sets [$($doc)*] $key $field [$kind] [$($bound)*] [$($shown)?]), )* ],
                }
            }
        }
    };

    (@key auto $kind:ty) => { <$kind as $crate::keys::kind::Kind>::Key };
    (@key by_hand $kt:ty) => { $kt };

    (@or [$($x:tt)+] [$($d:tt)*]) => { $($x)+ };
    (@or [] [$($d:tt)*]) => { $($d)* };

    (@build auto $keys:ident $p:ident $path:ident $ctx:ident $key:ident [$($field:ident).+] [$kind:ty] [$bound:expr]) => {
        if let Some(v) = &$keys.$key {
            $p.$($field).+ = <$kind as $crate::keys::kind::Kind>::parse_in(
                v,
                &$crate::params!(@bound $bound),
                &$crate::keys::at($path, stringify!($key)),
                $ctx,
            )?;
        }
    };
    (@build by_hand $($x:tt)*) => {};

    (@check auto $p:ident $path:ident $key:ident [$($field:ident).+] [$kind:ty] [$bound:expr]) => {
        $crate::params!(@bound $bound).check::<$kind>(&$p.$($field).+, &$crate::keys::at($path, stringify!($key)))?;
    };
    (@check by_hand $($x:tt)*) => {};

    (@row auto $sets:ident [$($doc:literal)*] $key:ident [$($field:ident).+] [$kind:ty] [$bound:expr] [$($shown:literal)?]) => {
        $crate::keys::kind::Row {
            key: stringify!($key),
            unit: <$kind as $crate::keys::kind::Kind>::UNIT,
            defaults: $crate::params!(@or [$( $sets.iter().map(|_| $shown.to_string()).collect() )?]
                [$sets.iter().map(|s| <$kind as $crate::keys::kind::Kind>::cell(&s.1.$($field).+)).collect()]),
            bounds: $crate::params!(@bound $bound).text(),
            doc: $crate::keys::kind::doc_line(&[$($doc),*]),
        }
    };
    (@row by_hand $sets:ident [$($doc:literal)*] $key:ident $field:tt [$kt:ty] [($unit:literal, $btext:literal)] [$shown:literal]) => {
        $crate::keys::kind::Row {
            key: stringify!($key),
            unit: $unit,
            defaults: $sets.iter().map(|_| $shown.to_string()).collect(),
            bounds: $btext.to_string(),
            doc: $crate::keys::kind::doc_line(&[$($doc),*]),
        }
    };

    // A bound written with the short names of `keys::kind` (`in_oc(0.0, 1.0)`, `POSITIVE`).
    (@bound $bound:expr) => {{
        #[allow(unused_imports)]
        use $crate::keys::kind::{at_least, in_cc, in_co, in_oc, in_oo, ANY, POSITIVE};
        $bound
    }};
}
