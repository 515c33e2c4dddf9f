//! A table with a row per flow of the run that is fixed once the world is built: a
//! parallel run's partitions share one copy instead of each holding its own (the
//! headers, 64 B a flow, and the descriptions, 24 B: 374,302 flows in 100 ms of the
//! scale benchmark).

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

pub(crate) struct PerFlow<T>(Arc<[T]>);

impl<T> PerFlow<T> {
    pub fn new(rows: Vec<T>) -> Self {
        PerFlow(rows.into())
    }

    /// The same table, for another partition of the run.
    pub fn share(&self) -> Self {
        PerFlow(Arc::clone(&self.0))
    }
}

impl<T> Deref for PerFlow<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        &self.0
    }
}

/// Rows change at build (jobs, storage) and in runs of one partition (storage's message
/// sizes, fast-forward's shortened flows), never while partitions share them.
impl<T> DerefMut for PerFlow<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        Arc::get_mut(&mut self.0).expect("a flow table shared by partitions is not written")
    }
}

/// No flows: what a partition's table becomes once the merge has dropped it.
impl<T> Default for PerFlow<T> {
    fn default() -> Self {
        PerFlow(Arc::new([]))
    }
}
