#!/usr/bin/python3.11
# SPDX-License-Identifier: GPL-2.0
"""ynl-python.py STAGE YNL_DIR SPEC

Put into the initramfs staging directory STAGE what the kernel's YNL CLI
(YNL_DIR/cli.py of the 6.12 tree) needs to run in the test VM, and nothing
else of Python:

  STAGE/opt/ynl/cli.py, lib/*.py    the CLI and its library, with sources
  STAGE/opt/ynl/damon_perf.yaml     SPEC
  STAGE/usr/lib/python3.11/...      the stdlib modules the CLI imports, as
  STAGE/usr/lib/python3/dist-packages/yaml/...  sourceless .pyc (PyYAML too)

The modules are those a run of the CLI itself loads (sys.modules after
"--help", "--list-ops" and a "--dump": argparse's help, the spec's
loading, the socket code and its error path), traced here under the
interpreter that runs this script: Debian's /usr/bin/python3.11, the one
scripts/initramfs.sh copies into the image (bytecode is per version).
Each is compiled as an unchecked-hash .pyc where its .py would be, so the
guest never recompiles nor reads a source. Extension modules (.so) are
copied as they are; their shared libraries, and the interpreter's, are
the caller's (it prints the .so paths it copied, one per line).

  STAGE/usr/lib/python3.11/sitecustomize.pyc   yaml.safe_load through
                                    PyYAML's libyaml parser (CSafeLoader)

The CLI reads its spec with yaml.safe_load, PyYAML's pure-Python parser:
about two thirds of a call's CPU time on the host, more of it under TCG,
and ynl_cli.sh calls the CLI a dozen times per kernel. The image's
sitecustomize makes safe_load parse with libyaml instead; this script
first checks that both parsers give the same document for the spec, and
the CLI itself is run unmodified.
"""
import os
import runpy
import sys

if len(sys.argv) != 4:
    sys.exit(__doc__)
stage, ynl, spec = sys.argv[1:]
ynl = os.path.abspath(ynl)

# The trace: run the CLI as the guest will, in this process, with its
# output discarded. Every run fails at the family lookup on the host (no
# module loaded) after the imports it does.
import yaml  # noqa: E402

SITECUSTOMIZE = """# The test image's YNL CLI: yaml.safe_load through libyaml's parser
# (scripts/lib/ynl-python.py checked it reads the spec the same).
try:
    import yaml
    _loader = yaml.CSafeLoader

    def _safe_load(stream):
        return yaml.load(stream, Loader=_loader)

    yaml.safe_load = _safe_load
except (ImportError, AttributeError):
    pass
"""
with open(spec, encoding='utf-8') as f:
    text = f.read()
if not hasattr(yaml, 'CSafeLoader'):
    sys.exit('ynl-python: PyYAML has no libyaml parser (CSafeLoader)')
if yaml.load(text, Loader=yaml.CSafeLoader) != yaml.safe_load(text):
    sys.exit(f'ynl-python: libyaml and PyYAML read {spec} differently')
exec(compile(SITECUSTOMIZE, 'sitecustomize', 'exec'))  # pylint: disable=exec-used

before = set(sys.modules)
saved = sys.stdout, sys.stderr, sys.argv, list(sys.path)
sys.path.insert(0, ynl)
with open(os.devnull, 'w', encoding='utf-8') as null:
    sys.stdout = sys.stderr = null
    for args in (['--help'], ['--list-ops'],
                 ['--output-json', '--dump', 'stats-get']):
        if args != ['--help']:
            args = ['--spec', spec, '--no-schema'] + args
        sys.argv = ['cli.py'] + args
        try:
            runpy.run_path(os.path.join(ynl, 'cli.py'), run_name='__main__')
        except BaseException:  # SystemExit, the host's family lookup
            pass
    sys.stdout, sys.stderr, sys.argv, sys.path[:] = saved
files = set()
for name, mod in list(sys.modules.items()):
    f = getattr(mod, '__file__', None)
    if not f or name == '__main__':
        continue
    f = os.path.abspath(f)
    if f.startswith(ynl + os.sep):
        continue
    files.add(f)

# Only now the modules the copying needs (they are not the CLI's).
import py_compile  # noqa: E402
import shutil  # noqa: E402

so = []
for f in sorted(files):
    if not f.startswith('/usr/lib/'):
        sys.exit(f'ynl-python: {f} is outside /usr/lib: not the system '
                 'python3.11 (run this with /usr/bin/python3.11)')
    dst = stage + f
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if f.endswith('.py'):
        py_compile.compile(f, cfile=dst + 'c', dfile=f, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    else:
        shutil.copy(f, dst)
        so.append(f)
site = f'{stage}/usr/lib/python3.11/sitecustomize.py'
with open(site, 'w', encoding='utf-8') as f:
    f.write(SITECUSTOMIZE)
py_compile.compile(site, cfile=site + 'c',
                   dfile='/usr/lib/python3.11/sitecustomize.py', doraise=True,
                   invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
os.remove(site)
# getpath's landmark for the platform-dependent part (else a warning on
# every start), even when no extension module is needed
os.makedirs(f'{stage}/usr/lib/python3.11/lib-dynload', exist_ok=True)

out = f'{stage}/opt/ynl'
os.makedirs(f'{out}/lib', exist_ok=True)
shutil.copy(f'{ynl}/cli.py', f'{out}/cli.py')
for f in sorted(os.listdir(f'{ynl}/lib')):
    if f.endswith('.py'):
        shutil.copy(f'{ynl}/lib/{f}', f'{out}/lib/{f}')
        py_compile.compile(f'{out}/lib/{f}', dfile=f'/opt/ynl/lib/{f}',
                           doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
shutil.copy(spec, f'{out}/damon_perf.yaml')
os.chmod(f'{out}/cli.py', 0o755)
print(f'ynl-python: {len(files)} modules', file=sys.stderr)
for f in so:
    print(f)
