//! Hands `Results` to Python without per-element conversion: numeric columns become
//! `(dtype, bytes)` with little-endian raw bytes (`np.frombuffer(b, "<" + dtype)`),
//! string columns become `list[str]`.

use dcsim::results::{Column, Results, Table};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

/// numpy dtype codes (to be read little-endian) of the numeric column kinds.
pub const DTYPE_U64: &str = "u8";
pub const DTYPE_I64: &str = "i8";
pub const DTYPE_F64: &str = "f8";

fn le_bytes<'py, T: Copy, const N: usize>(
    py: Python<'py>,
    values: &[T],
    to_le: impl Fn(T) -> [u8; N],
) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, values.len() * N, |buf: &mut [u8]| {
        for (dst, v) in buf.chunks_exact_mut(N).zip(values) {
            dst.copy_from_slice(&to_le(*v));
        }
        Ok(())
    })
}

pub fn column_to_py<'py>(py: Python<'py>, col: &Column) -> PyResult<Bound<'py, PyAny>> {
    let typed = |dtype: &str, bytes: Bound<'py, PyBytes>| -> PyResult<Bound<'py, PyAny>> {
        Ok(PyTuple::new(py, [dtype.into_pyobject(py)?.into_any(), bytes.into_any()])?.into_any())
    };
    match col {
        Column::U64(v) => typed(DTYPE_U64, le_bytes(py, v, u64::to_le_bytes)?),
        Column::I64(v) => typed(DTYPE_I64, le_bytes(py, v, i64::to_le_bytes)?),
        Column::F64(v) => typed(DTYPE_F64, le_bytes(py, v, f64::to_le_bytes)?),
        Column::Str(v) => Ok(PyList::new(py, v)?.into_any()),
    }
}

pub fn table_to_py<'py>(py: Python<'py>, table: &Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in &table.columns {
        d.set_item(name, column_to_py(py, col)?)?;
    }
    Ok(d)
}

/// `{"tables": {name: {col: (dtype, bytes) | list[str]}}, "summary": json_str}`.
pub fn results_to_py<'py>(py: Python<'py>, results: &Results) -> PyResult<Bound<'py, PyDict>> {
    let tables = PyDict::new(py);
    for (name, table) in &results.tables {
        tables.set_item(name, table_to_py(py, table)?)?;
    }
    let summary = serde_json::to_string(&results.summary)
        .map_err(|e| crate::errors::SimulationError::new_err(format!("summary: {e}")))?;
    let out = PyDict::new(py);
    out.set_item("tables", tables)?;
    out.set_item("summary", summary)?;
    Ok(out)
}
