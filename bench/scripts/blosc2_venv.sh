# Sourced by the scripts that run python-blosc2 (bash): makes the virtual environment
# target/bench-venvs/blosc2 with the pins tests/fixtures/generate.py uses for the python-blosc2
# 4.x fixtures, or reuses it when its stamp matches those pins.
#
#   blosc2_venv REPO BASE_PYTHON
#     sets `py` (the venv's python) and `blosc2_version`.
blosc2_venv() {
  local repo=$1 base_python=$2
  local venv="$repo/target/bench-venvs/blosc2" pins stamp
  py="$venv/bin/python"
  pins=$(cd "$repo" && python3 - <<'PY'
import importlib.util
spec = importlib.util.spec_from_file_location("generate", "tests/fixtures/generate.py")
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)
print("\n".join(gen.PRODUCERS["blosc2-4"]["pins"]))
PY
  )
  stamp="$venv/bench-pins.txt"
  if [[ -x "$py" && -f "$stamp" && "$(cat "$stamp")" == "$pins" ]]; then
    echo "reusing $venv"
  else
    echo "creating $venv ..."
    rm -rf "$venv"
    "$base_python" -m venv "$venv"
    local pin_list
    mapfile -t pin_list <<< "$pins"
    "$py" -m pip install --quiet --disable-pip-version-check --only-binary=:all: "${pin_list[@]}"
    printf '%s' "$pins" > "$stamp"
  fi
  blosc2_version=$("$py" -c 'import blosc2; print(blosc2.__version__)')
}
