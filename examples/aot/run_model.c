/* A generic harness for a dlas-compile object: reads each input from a raw
 * little-endian file (dense, row-major, the header's element type), runs the
 * model and writes each result to a raw file.
 *
 *   cc -O2 -DDLAS_MODEL_HEADER='"model.h"' run_model.c model.o -lomp -lm -o run
 *   ./run THREADS in0.bin [in1.bin ...] out0.bin [out1.bin ...]
 */
#include DLAS_MODEL_HEADER

#include <stdio.h>

static void *read_file(const char *path, int64_t bytes) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "run_model: cannot open '%s'\n", path);
    exit(1);
  }
  void *data = malloc(bytes > 0 ? bytes : 1);
  if (fread(data, 1, bytes, f) != (size_t)bytes || fgetc(f) != EOF) {
    fprintf(stderr, "run_model: '%s' must hold exactly %lld bytes\n", path,
            (long long)bytes);
    exit(1);
  }
  fclose(f);
  return data;
}

int main(int argc, char **argv) {
  if (argc != 2 + DLAS_NUM_INPUTS + DLAS_NUM_RESULTS) {
    fprintf(stderr, "usage: %s THREADS <%d input files> <%d result files>\n",
            argv[0], DLAS_NUM_INPUTS, DLAS_NUM_RESULTS);
    return 2;
  }
  DLAS_INIT(atoi(argv[1]));
  void *inputs[DLAS_NUM_INPUTS + 1], *results[DLAS_NUM_RESULTS + 1];
  for (int i = 0; i < DLAS_NUM_INPUTS; ++i)
    inputs[i] = read_file(argv[2 + i], dlas_input_bytes[i]);
  for (int i = 0; i < DLAS_NUM_RESULTS; ++i)
    results[i] = malloc(dlas_result_bytes[i] > 0 ? dlas_result_bytes[i] : 1);
  if (dlas_run_packed(inputs, results) != 0)
    return 1;
  for (int i = 0; i < DLAS_NUM_RESULTS; ++i) {
    const char *path = argv[2 + DLAS_NUM_INPUTS + i];
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(results[i], 1, dlas_result_bytes[i], f) !=
                  (size_t)dlas_result_bytes[i]) {
      fprintf(stderr, "run_model: cannot write '%s'\n", path);
      return 1;
    }
    fclose(f);
  }
  return 0;
}
