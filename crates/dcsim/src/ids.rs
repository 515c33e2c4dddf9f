//! Typed arena indices: mixing a port index with a flow index does not compile.

macro_rules! id {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);
        impl $name {
            /// Marks "no such element" in intrusive lists.
            pub const NONE: $name = $name(u32::MAX);
            #[inline]
            pub fn idx(self) -> usize { self.0 as usize }
            #[inline]
            pub fn is_none(self) -> bool { self.0 == u32::MAX }
        }
    };
}

id!(/// A host or a switch.
    NodeId);
id!(/// One end of a link; a node owns a contiguous range of ports.
    PortId);
id!(/// A flow, which is also its sender queue pair.
    FlowId);
id!(/// A packet slot in the packet pool.
    PktId);
