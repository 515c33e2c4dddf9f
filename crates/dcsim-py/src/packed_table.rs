//! `PackedTable`: the rates table handed to Python still packed (`dcsim::sim::PackedRates`,
//! 12 bytes a row for 100 ms of k = 16 where its three columns take 24). `Results`
//! unpacks it whole when the table is first read, and writes it to a file a slice at a
//! time, so a run whose rates are written but not read never holds the columns.

use dcsim::sim::PackedRates;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{guard, SimulationError};
use crate::export::table_to_py;

#[pyclass(module = "dcsim._native")]
pub struct PackedTable {
    /// `None` once taken.
    rows: Option<PackedRates>,
}

impl PackedTable {
    pub fn new(rows: PackedRates) -> Self {
        PackedTable { rows: Some(rows) }
    }
}

fn taken() -> PyErr {
    SimulationError::new_err("the packed table was taken")
}

#[pymethods]
impl PackedTable {
    /// Its rows (none once taken).
    fn __len__(&self) -> usize {
        self.rows.as_ref().map_or(0, PackedRates::len)
    }

    /// The column names, in order.
    #[getter]
    fn columns(&self) -> Vec<&'static str> {
        dcsim::sim::RATES_COLUMNS.to_vec()
    }

    /// Rows `start` to `stop` (clamped to the table) as `{col: ndarray}`; the packed
    /// rows are kept.
    fn slice<'py>(&self, py: Python<'py>, start: usize, stop: usize) -> PyResult<Bound<'py, PyDict>> {
        let rows = self.rows.as_ref().ok_or_else(taken)?;
        let t = guard(|| rows.slice(start, stop))?;
        table_to_py(py, t)
    }

    /// The whole table as `{col: ndarray}`, the packed rows freed as they are unpacked;
    /// the object holds nothing after.
    fn take<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let rows = self.rows.take().ok_or_else(taken)?;
        let t = py.allow_threads(move || guard(move || rows.into_table()))?;
        table_to_py(py, t)
    }

    fn __repr__(&self) -> String {
        format!("PackedTable(rows={}, taken={})", self.__len__(), self.rows.is_none())
    }
}
