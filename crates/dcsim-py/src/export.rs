//! Hands `Results` to Python without per-element conversion: numeric columns become
//! NumPy arrays (`uint64`, `int64`, `float64`) that take over the column's buffer,
//! string columns become `list[str]` whose rows share one `str` per distinct value;
//! the rates table stays packed (`PackedTable`) until it is read.

use dcsim::results::{Column, Results, Table};
use dcsim::sim::PackedRates;
use dcsim::Simulation;
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

pub fn column_to_py(py: Python<'_>, col: Column) -> PyResult<Bound<'_, PyAny>> {
    Ok(match col {
        Column::U64(v) => v.into_pyarray(py).into_any(),
        Column::I64(v) => v.into_pyarray(py).into_any(),
        Column::F64(v) => v.into_pyarray(py).into_any(),
        Column::Str(v) => {
            // 8 bytes a row: 374,302 flows' two host names take 6 MiB, not 46.
            let values: Vec<Bound<'_, PyString>> = v.values().iter().map(|s| PyString::new(py, s)).collect();
            PyList::new(py, v.codes().iter().map(|&c| &values[c as usize]))?.into_any()
        }
    })
}

pub fn table_to_py(py: Python<'_>, table: Table) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in table.columns {
        d.set_item(name, column_to_py(py, col)?)?;
    }
    Ok(d)
}

/// A finished run: its tables, and the rates table still packed.
pub struct Finished {
    pub results: Results,
    pub rates: Option<PackedRates>,
}

/// Finishes a run (`Simulation::finish_rates_packed`).
pub fn finish(sim: Simulation) -> Finished {
    let (results, _, rates) = sim.finish_rates_packed();
    Finished { results, rates: Some(rates) }
}

/// `{"tables": {name: {col: ndarray | list[str]} | PackedTable}, "summary": json_str}`
/// (the tables' order is `Results.names`', not the dict's).
pub fn results_to_py(py: Python<'_>, done: Finished) -> PyResult<Bound<'_, PyDict>> {
    let Finished { results, rates } = done;
    let summary = serde_json::to_string(&results.summary).map_err(|e| crate::errors::SimulationError::new_err(format!("summary: {e}")))?;
    let tables = PyDict::new(py);
    for (name, table) in results.tables {
        tables.set_item(name, table_to_py(py, table)?)?;
    }
    if let Some(rows) = rates {
        tables.set_item("rates", Bound::new(py, crate::packed_table::PackedTable::new(rows))?)?;
    }
    let out = PyDict::new(py);
    out.set_item("tables", tables)?;
    out.set_item("summary", summary)?;
    Ok(out)
}
