"""Writes the two configurations superpod.sh plans, from examples/clusters/superpod-4su: per-item
(the example, its size a variable) and terraform-data (the example's gpucluster_node.all and
gpucluster_hca.all replaced by terraform-data.tf). Usage: prepare.py REPO OUTDIR."""
import os, re, shutil, sys

repo, out = sys.argv[1], sys.argv[2]
ex = os.path.join(repo, "examples/clusters/superpod-4su")
main = open(os.path.join(ex, "main.tf")).read()
main, n = re.subn(r"scalable_units(\s*)= 4\b", r"scalable_units\1= var.su", main)
assert n == 1, "the example's scalable_units = 4 line moved"
main += '\nvariable "su" {\n  type    = number\n  default = 4\n}\n'
def without(text, rtype):
    m = re.search(r'^resource "%s" "all" \{\n.*?^\}\n' % rtype, text, re.S | re.M)
    assert m, rtype + " not found in the example"
    return text[:m.start()] + text[m.end():]
td = without(without(main, "gpucluster_node"), "gpucluster_hca")
td += "\n" + open(os.path.join(os.path.dirname(__file__), "terraform-data.tf")).read()
for name, text in (("per-item", main), ("terraform-data", td)):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "main.tf"), "w").write(text)
    shutil.copy(os.path.join(ex, "outputs-scheduler.tf"), d)
