//! Import of ASTRA-sim 1.0 / SimAI workload text files (the format SimAI's AICB writes
//! and ASTRA-sim 1.0 reads; docs/models/collectives.md gives the mapping).
//!
//! ```text
//! HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 8   (or DATA, MODEL, ...)
//! 2                                     layers
//! name dep fwd_t fwd_type fwd_size ig_t ig_type ig_size wg_t wg_type wg_size wg_update
//! ```
//!
//! Times are in `time_unit` (ASTRA-sim counts cycles; SimAI nanoseconds), sizes in
//! bytes. The first word and `model_parallel_NPU_group` give the groups of ranks of the
//! forward and input-gradient collectives (model-parallel) and of the weight-gradient
//! ones (data-parallel), as ASTRA-sim assigns them. One iteration is the training loop
//! of ASTRA-sim's type: the forward pass (layer 0 first: its compute, then its forward
//! collective, waited for), then the backward pass (the last layer first: input-gradient
//! compute and collective, weight-gradient compute, then its collective, issued without
//! waiting; the input-gradient collective is waited for before the weight-gradient
//! compute in the Transformer loops, after the weight-gradient collective in the others,
//! which send none for layer 0). The iteration ends when every collective is done.

use super::build::DEFAULT_CHUNK;
use super::plan::{CollKind, CollPlan, Groups, Op};
use crate::error::{Error, Result};
use crate::units::SimTime;

/// The iteration of a workload file for `ranks` ranks: its ops and collectives.
/// Errors are `origin: line N: reason`, never quoting the file.
pub fn parse(text: &str, ranks: usize, unit_ps: u64, origin: &str) -> Result<(Vec<Op>, Vec<CollPlan>)> {
    let err = |ln: usize, m: String| Error::scenario(origin, format!("line {ln}: {m}"));
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty());
    let (hl, header) = lines.next().ok_or_else(|| Error::scenario(origin, "empty workload file"))?;
    let mut head = header.split_whitespace();
    let policy = head.next().unwrap_or("");
    let mut mp = 1u64;
    let rest: Vec<&str> = head.collect();
    for kv in rest.chunks(2) {
        let key = kv[0].trim_end_matches(':');
        let val = kv.get(1).and_then(|v| v.parse::<u64>().ok()).ok_or_else(|| err(hl, format!("'{key}:' needs an integer value")))?;
        match key {
            "model_parallel_NPU_group" => mp = val,
            "all_gpus" if val as usize != ranks => {
                return Err(err(hl, format!("all_gpus: {val}, but the job has {ranks} ranks")));
            }
            "ep" | "pp" if val != 1 => {
                return Err(err(hl, format!("{key}: {val}: expert and pipeline groups are not imported (only 1)")));
            }
            "all_gpus" | "ep" | "pp" | "vpp" | "ga" | "checkpoints" | "checkpoint_initiates" => {}
            _ => return Err(err(hl, format!("unknown header key '{key}:'"))),
        }
    }
    let n = ranks as u32;
    if mp == 0 || !ranks.is_multiple_of(mp as usize) {
        return Err(err(hl, format!("model_parallel_NPU_group: {mp} does not divide the job's {ranks} ranks")));
    }
    let k = mp as u32;
    // The groups of the forward and input-gradient collectives (model-parallel) and of
    // the weight-gradient ones (data-parallel), as ASTRA-sim's decode_involved_dimensions
    // assigns its dimensions, dimension 0 varying fastest over the ranks.
    // `Strided(n)`: groups of one rank, no collective (DATA's loop issues no forward or
    // input-gradient collective, MODEL's no weight-gradient one).
    let (model, data) = match policy {
        "DATA" => (Groups::Strided(n), Groups::All),
        "MODEL" => (Groups::All, Groups::Strided(n)),
        "HYBRID_TRANSFORMER" | "HYBRID_TRANSFORMER_FWD_IN_BCKWD" | "HYBRID_DATA_MODEL" => (Groups::Blocks(k), Groups::Strided(k)),
        "HYBRID_MODEL_DATA" => (Groups::Strided(n / k), Groups::Blocks(n / k)),
        "HYBRID_DLRM" | "HYBRID_DLRM_ENHANCED" | "HYBRID_CUSTOMIZED" | "MICRO" | "DISTRIBUTED_INFERENCE" => {
            return Err(err(hl, format!("{policy}: this loop is not imported (DATA, MODEL, HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_DATA_MODEL, HYBRID_MODEL_DATA are)")));
        }
        _ => return Err(err(hl, "the first word must be the parallelism: DATA, MODEL, HYBRID_TRANSFORMER, HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_DATA_MODEL or HYBRID_MODEL_DATA".into())),
    };
    // A group of all the ranks is `All` (the graph a DATA file always had); a group of
    // one rank has nothing to send.
    let norm = |g: Groups| match g.size(ranks) {
        1 => None,
        s if s == ranks => Some(Groups::All),
        _ => Some(g),
    };
    let (model, data) = (norm(model), norm(data));
    // ASTRA-sim's Transformer loops wait for each input-gradient collective before the
    // weight-gradient compute; its model, data-model and model-data loops issue it
    // without waiting (none for layer 0), compute the weight gradient beside it, issue
    // the weight-gradient collective and then wait for it.
    let deferred = matches!(policy, "MODEL" | "HYBRID_DATA_MODEL" | "HYBRID_MODEL_DATA");
    let (cl, count) = lines.next().ok_or_else(|| Error::scenario(origin, "no layer count (second line)"))?;
    let count: usize = count.parse().map_err(|_| err(cl, "the second line is the number of layers".into()))?;
    let (mut ops, mut colls) = (Vec::new(), Vec::new());
    let mut layers = Vec::new();
    for (ln, l) in lines {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() != 12 {
            return Err(err(ln, format!("{} fields; a layer has 12 (name, dependency, then compute, type, size for forward, input and weight gradient, and the update time)", f.len())));
        }
        let int = |i: usize, what: &str| f[i].parse::<u64>().map_err(|_| err(ln, format!("{what}: not a non-negative integer")));
        let kind = |i: usize| match f[i] {
            "NONE" => Ok(None),
            "ALLREDUCE" => Ok(Some(CollKind::AllReduceRing)),
            "ALLGATHER" => Ok(Some(CollKind::AllGather)),
            "REDUCESCATTER" => Ok(Some(CollKind::ReduceScatter)),
            "ALLTOALL" => Ok(Some(CollKind::AllToAll)),
            _ => Err(err(ln, format!("field {}: not NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER or ALLTOALL", i + 1))),
        };
        let t = |i: usize, what: &str| int(i, what).map(|v| SimTime(v.saturating_mul(unit_ps)));
        type Phase = (SimTime, Option<(CollKind, u64, Groups)>);
        let phase = |ti: usize, ki: usize, si: usize, what: &str, groups: Option<Groups>| -> Result<Phase> {
            let time = t(ti, &format!("{what} compute time"))?;
            let size = int(si, &format!("{what} communication size"))?;
            let c = kind(ki)?.filter(|_| size > 0);
            Ok((time, c.and_then(|k| groups.map(|g| (k, size, g)))))
        };
        layers.push((
            phase(2, 3, 4, "forward", model)?,
            phase(5, 6, 7, "input gradient", model)?,
            phase(8, 9, 10, "weight gradient", data)?,
        ));
        int(11, "update time")?;
    }
    if layers.len() != count {
        return Err(Error::scenario(origin, format!("the second line says {count} layers, the file has {}", layers.len())));
    }
    if layers.is_empty() {
        return Err(Error::scenario(origin, "no layers"));
    }
    // Appends the collective (if any) and its op; its index.
    let mut coll = |ops: &mut Vec<Op>, c: Option<(CollKind, u64, Groups)>, wait: bool| {
        c.map(|(kind, bytes, groups)| {
            let k = colls.len() as u16;
            ops.push(if wait { Op::Coll(k) } else { Op::Issue(k) });
            colls.push(CollPlan { kind, bytes, channels: 1, chunk: DEFAULT_CHUNK, root: 0, groups });
            k
        })
    };
    for &((t, c), _, _) in &layers {
        ops.push(Op::Compute(t));
        coll(&mut ops, c, true);
    }
    for (l, &(_, (ti, ci), (tw, cw))) in layers.iter().enumerate().rev() {
        ops.push(Op::Compute(ti));
        if !deferred {
            coll(&mut ops, ci, true);
            ops.push(Op::Compute(tw));
            coll(&mut ops, cw, false);
            continue;
        }
        let ig = coll(&mut ops, ci.filter(|_| l > 0), false);
        ops.push(Op::Compute(tw));
        coll(&mut ops, cw, false);
        ops.extend(ig.map(Op::Wait));
    }
    if colls.len() > u16::MAX as usize {
        return Err(Error::scenario(origin, format!("at most {} collectives per iteration", u16::MAX)));
    }
    Ok((ops, colls))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_parallel_loop() {
        let text = "DATA\n2\nl0 -1 10 NONE 0 20 NONE 0 30 ALLREDUCE 4096 1\nl1 -1 11 NONE 0 21 NONE 0 31 ALLREDUCE 8192 1\n";
        let (ops, colls) = parse(text, 4, 1000, "w").unwrap();
        let ns = |v: u64| Op::Compute(SimTime::ns(v));
        assert_eq!(ops, vec![ns(10), ns(11), ns(21), ns(31), Op::Issue(0), ns(20), ns(30), Op::Issue(1)]);
        assert_eq!((colls[0].bytes, colls[1].bytes), (8192, 4096));
    }

    #[test]
    fn hybrid_groups_per_policy() {
        let body = "1\nl0 -1 1 ALLREDUCE 64 2 ALLGATHER 64 3 ALLREDUCE 128 1\n";
        let parse8 = |head: &str| parse(&format!("{head}\n{body}"), 8, 1000, "w");
        let groups = |head: &str| parse8(head).unwrap().1.iter().map(|c| c.groups).collect::<Vec<_>>();
        let (b2, s2) = (Groups::Blocks(2), Groups::Strided(2));
        for p in ["HYBRID_TRANSFORMER", "HYBRID_TRANSFORMER_FWD_IN_BCKWD"] {
            assert_eq!(groups(&format!("{p} model_parallel_NPU_group: 2 all_gpus: 8")), vec![b2, b2, s2], "{p}");
        }
        // The other loops send no input-gradient collective for layer 0 (the only one).
        assert_eq!(groups("HYBRID_DATA_MODEL model_parallel_NPU_group: 2"), vec![b2, s2]);
        // Data parallelism on the first dimension: data groups of 4 consecutive ranks.
        assert_eq!(groups("HYBRID_MODEL_DATA model_parallel_NPU_group: 2"), vec![Groups::Strided(4), Groups::Blocks(4)]);
        // MODEL: forward (and input gradient) over all ranks, no weight-gradient group.
        assert_eq!(groups("MODEL"), vec![Groups::All]);
        // DATA: only the weight-gradient collective (ASTRA-sim's data-parallel loop).
        assert_eq!(groups("DATA"), vec![Groups::All]);
        // A model-parallel group of all ranks leaves data groups of one: nothing sent.
        assert_eq!(groups("HYBRID_TRANSFORMER model_parallel_NPU_group: 8"), vec![Groups::All, Groups::All]);
        let e = parse8("HYBRID_TRANSFORMER model_parallel_NPU_group: 3").unwrap_err().to_string();
        assert!(e.contains("w: line 1: model_parallel_NPU_group: 3 does not divide the job's 8 ranks"), "{e}");
        let e = parse8("HYBRID_DLRM").unwrap_err().to_string();
        assert!(e.contains("w: line 1: HYBRID_DLRM: this loop is not imported"), "{e}");
    }

    #[test]
    fn input_gradient_waits_per_loop() {
        let text = |p: &str| {
            format!("{p} model_parallel_NPU_group: 2\n2\nl0 -1 1 NONE 0 2 ALLREDUCE 64 3 ALLREDUCE 64 1\nl1 -1 4 NONE 0 5 ALLREDUCE 64 6 ALLREDUCE 64 1\n")
        };
        let ns = |v: u64| Op::Compute(SimTime::ns(v));
        // Transformer: each input-gradient collective waited for, layer 0's too.
        let (ops, _) = parse(&text("HYBRID_TRANSFORMER"), 4, 1000, "w").unwrap();
        let want = [ns(1), ns(4), ns(5), Op::Coll(0), ns(6), Op::Issue(1), ns(2), Op::Coll(2), ns(3), Op::Issue(3)];
        assert_eq!(ops, want);
        // Data-model: issued, the weight gradient computed beside it, then waited for;
        // none for layer 0.
        let (ops, _) = parse(&text("HYBRID_DATA_MODEL"), 4, 1000, "w").unwrap();
        let want = [ns(1), ns(4), ns(5), Op::Issue(0), ns(6), Op::Issue(1), Op::Wait(0), ns(2), ns(3), Op::Issue(2)];
        assert_eq!(ops, want);
    }

    #[test]
    fn simai_header_and_errors() {
        let h = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 ep: 1 pp: 1 vpp: 8 ga: 1 all_gpus: 4 checkpoints: 0 checkpoint_initiates: 0\n1\n";
        let (ops, colls) = parse(&format!("{h}emb -1 5 ALLREDUCE 64 5 NONE 0 5 ALLREDUCE 128 1\n"), 4, 1000, "w").unwrap();
        assert_eq!(colls.len(), 1, "the forward all-reduce is over a model-parallel group of one");
        assert_eq!(ops.len(), 4);
        let e = parse(&h.replace("all_gpus: 4", "all_gpus: 8"), 4, 1000, "w").unwrap_err().to_string();
        assert!(e.contains("w: line 1: all_gpus: 8, but the job has 4 ranks"), "{e}");
        let e = parse(&h.replace("model_parallel_NPU_group: 1", "model_parallel_NPU_group: 8"), 4, 1, "w").unwrap_err().to_string();
        assert!(e.contains("model_parallel_NPU_group: 8"), "{e}");
        let e = parse("DATA\n1\nl0 -1 10 NONE 0 20 NONE 0 30 BCAST 4096 1\n", 4, 1, "w").unwrap_err().to_string();
        assert!(e.contains("w: line 3: field 10: not NONE"), "{e}");
        let e = parse("DATA\n2\nl0 -1 10 NONE 0 20 NONE 0 30 NONE 0 1\n", 4, 1, "w").unwrap_err().to_string();
        assert!(e.contains("says 2 layers, the file has 1"), "{e}");
        let e = parse("DATA bogus: 3\n1\n", 4, 1, "w").unwrap_err().to_string();
        assert!(e.contains("unknown header key 'bogus:'"), "{e}");
    }
}
