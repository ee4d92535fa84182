#!/bin/sh
# A stand-in for dlas-run in dlas-tune's whole-model check: the model takes
# $FAKE_TUNED_MS with a --tuning-file and 1 ms without.
case " $* " in
  *" --tuning-file "*) ms="${FAKE_TUNED_MS:-1.0}" ;;
  *) ms=1.0 ;;
esac
echo "time: min $ms ms, median $ms ms, max $ms ms (3 runs, 1 warm-up)"
