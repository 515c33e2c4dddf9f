//! Each declared model's Parameters table in `docs/models/`, and its copy in the
//! scenario-keys reference (`docs/scenarios.md`), is the one its `params!` declaration
//! gives (`cargo run -p dcsim --example params -- --write` rewrites them).

use dcsim::models::param_tables::{begin, pages, replace, tables, END, REFERENCE};

/// A page under `docs/`.
fn page(name: &str) -> String {
    let path = format!("{}/../../docs/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn every_page_table_is_its_declaration() {
    let mut stale = Vec::new();
    for (file, name, table) in pages() {
        let text = page(&file);
        let new = replace(&text, name, &table).unwrap_or_else(|| panic!("docs/{file} has no block {}", begin(name)));
        if new != text {
            stale.push(format!("{name} (docs/{file})"));
        }
    }
    assert!(stale.is_empty(), "stale Parameters tables: {}; run `cargo run -p dcsim --example params -- --write`", stale.join(", "));
}

#[test]
fn every_block_names_a_declared_model() {
    let names: Vec<&str> = tables().iter().map(|t| t.1).collect();
    let docs = format!("{}/../../docs", env!("CARGO_MANIFEST_DIR"));
    let models = std::fs::read_dir(format!("{docs}/models")).unwrap().map(|e| e.unwrap().path());
    for path in models.chain([format!("{docs}/{REFERENCE}").into()]) {
        let text = std::fs::read_to_string(&path).unwrap();
        for block in text.split("<!-- parameters: ").skip(1) {
            let name = block.split(" -->").next().unwrap();
            assert!(names.contains(&name), "{}: block {name:?} names no declared model", path.display());
            assert!(block.contains(END), "{}: block {name:?} is not closed", path.display());
        }
    }
}

#[test]
fn a_changed_table_is_found() {
    let (file, name, mut table) = tables().remove(0);
    table.rows[0].doc.push_str(" (changed)");
    let file = format!("models/{file}");
    assert_ne!(replace(&page(&file), name, &table).unwrap(), page(&file));
    assert_ne!(replace(&page(REFERENCE), name, &table).unwrap(), page(REFERENCE));
}
