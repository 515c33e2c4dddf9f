//! Each declared model's Parameters table in `docs/models/` is the one its `params!`
//! declaration gives (`cargo run -p dcsim --example params -- --write` rewrites them).

use dcsim::models::param_tables::{begin, replace, tables, END};

fn page(name: &str) -> String {
    let path = format!("{}/../../docs/models/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn every_page_table_is_its_declaration() {
    let mut stale = Vec::new();
    for (file, name, table) in tables() {
        let text = page(file);
        let new = replace(&text, name, &table).unwrap_or_else(|| panic!("docs/models/{file} has no block {}", begin(name)));
        if new != text {
            stale.push(format!("{name} (docs/models/{file})"));
        }
    }
    assert!(stale.is_empty(), "stale Parameters tables: {}; run `cargo run -p dcsim --example params -- --write`", stale.join(", "));
}

#[test]
fn every_block_names_a_declared_model() {
    let names: Vec<&str> = tables().iter().map(|t| t.1).collect();
    let dir = format!("{}/../../docs/models", env!("CARGO_MANIFEST_DIR"));
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
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
    assert_ne!(replace(&page(file), name, &table).unwrap(), page(file));
}
