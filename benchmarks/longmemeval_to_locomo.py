"""Write LongMemEval questions in LoCoMo layout, one sample per question, for locomo_eval.

    python -m benchmarks.longmemeval_to_locomo IN.json OUT.json [--ids QID ...] [--limit N]

Speakers "User" and "Assistant", dia_ids "D<session>:<turn>", session dates from
haystack_dates, one qa per sample with evidence = the has_answer turns (see longmemeval_data).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from memoryos_core.errors import ImportFormatError

from .longmemeval_data import load_longmemeval, to_locomo


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.longmemeval_to_locomo",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("input", help="LongMemEval JSON file (a list of question objects)")
    parser.add_argument("output", help="LoCoMo-layout JSON file to write")
    parser.add_argument("--ids", nargs="+", metavar="QID", help="only these question ids")
    parser.add_argument("--limit", type=int, help="only the first N questions (after --ids)")
    args = parser.parse_args(argv)
    questions = load_longmemeval(args.input)
    if args.ids:
        missing = sorted(set(args.ids) - {str(q["question_id"]) for q in questions})
        if missing:
            parser.error(f"no question {', '.join(missing)} in {args.input}")
        questions = [q for q in questions if str(q["question_id"]) in set(args.ids)]
    questions = questions[: args.limit] if args.limit else questions
    try:
        samples = [to_locomo(q) for q in questions]
    except (ValueError, TypeError, ImportFormatError) as exc:
        parser.error(str(exc))
    Path(args.output).write_text(json.dumps(samples, ensure_ascii=False), encoding="utf-8")
    types = Counter(str(q.get("question_type")) for q in questions)
    print(f"wrote {len(samples)} LoCoMo samples to {args.output}"
          f" ({', '.join(f'{t} {n}' for t, n in sorted(types.items()))})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
