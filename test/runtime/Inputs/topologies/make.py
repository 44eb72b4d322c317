#!/usr/bin/env python3
"""Make the topology files of the placement tests with hwloc's own tools.

Each machine shape is an hwloc synthetic description exported to XML by lstopo-no-graphics
(package `hwloc`); where real machines of that shape are asymmetric, this script then
  - removes the second PU (SMT sibling) of the efficiency cores (Intel E-cores have no SMT),
    numbering the PUs again and recomputing every ancestor's cpuset from its PUs, and
  - adds hwloc's <cpukind> elements (what hwloc itself reports on such machines: a CoreType
    info and a forced efficiency, least efficient 0).
Every file is loaded back with lstopo-no-graphics to check that hwloc accepts it.
Run from anywhere: python3 make.py   (rewrites the .xml files next to it)."""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (synthetic description, kinds [(CoreType, efficiency, first core, last core)], cores
#        whose second PU is removed)
MACHINES = {
    # Intel Alder Lake desktop (i7-12700-like): 8 P-cores with SMT, 4 E-cores without.
    "intel-hybrid-8p4e": ("pack:1 core:12 pu:2",
                          [("IntelAtom", 0, 8, 11), ("IntelCore", 1, 0, 7)], range(8, 12)),
    # 2-socket server, 2 NUMA nodes per socket (sub-NUMA clustering), 8 cores x 2 threads each.
    "2socket-4numa-smt": ("pack:2 numa:2 core:8 pu:2", [], []),
    # Lozi et al.'s machine: 4 x AMD Opteron 6172, 2 dies (NUMA nodes) of 6 cores per socket.
    "opteron-4x12": ("pack:4 numa:2 core:6 pu:1", [], []),
    # Apple M1-like: 4 efficiency ("Icestorm") cores, then 4 performance ("Firestorm") cores.
    "m1-4e4p": ("pack:1 core:8 pu:1",
                [("Icestorm", 0, 0, 3), ("Firestorm", 1, 4, 7)], []),
}


def mask(pus):
    v = 0
    for p in pus:
        v |= 1 << p
    return "0x%08x" % v if v < (1 << 32) else hex_words(v)


def hex_words(v):
    words = []
    while v:
        words.append("%08x" % (v & 0xffffffff))
        v >>= 32
    return "0x" + ",0x".join(reversed(words))


def pus_of(obj):
    if obj.get("type") == "PU":
        return {int(obj.get("os_index"))}
    out = set()
    for child in obj.findall("object"):
        out |= pus_of(child)
    return out


def fix_cpusets(obj):
    pus = set()
    for child in obj.findall("object"):
        fix_cpusets(child)
    if obj.get("type") == "PU":
        pus = {int(obj.get("os_index"))}
    elif obj.get("type") == "NUMANode":
        return
    else:
        pus = pus_of(obj)
    for attr in ("cpuset", "complete_cpuset", "allowed_cpuset"):
        if obj.get(attr) is not None:
            obj.set(attr, mask(pus))


def core_pus(root):
    cores = [o for o in root.iter("object") if o.get("type") == "Core"]
    cores.sort(key=lambda o: int(o.get("os_index")))
    return cores


def make(name, synth, kinds, no_smt):
    xml = subprocess.run(["lstopo-no-graphics", "-i", synth, "--of", "xml", "-"], check=True,
                         capture_output=True, text=True).stdout
    root = ET.fromstring(xml)
    machine = root.find("object")
    for info in machine.findall("info"):
        if info.get("name") == "ProcessName":
            machine.remove(info)
    cores = core_pus(root)
    for i in no_smt:
        pus = [o for o in cores[i].findall("object") if o.get("type") == "PU"]
        for pu in pus[1:]:
            cores[i].remove(pu)
    if no_smt:
        # number the PUs again in order (E-cores follow the P-cores' threads, as on real
        # machines), then every ancestor's cpuset from its PUs
        for i, pu in enumerate(o for o in root.iter("object") if o.get("type") == "PU"):
            pu.set("os_index", str(i))
        fix_cpusets(machine)
        # NUMA nodes' cpusets follow their parent's
        for parent in root.iter("object"):
            for child in parent.findall("object"):
                if child.get("type") == "NUMANode":
                    for attr in ("cpuset", "complete_cpuset"):
                        child.set(attr, parent.get(attr))
    support = root.find("support")
    at = list(root).index(support) if support is not None else len(root)
    for core_type, eff, first, last in kinds:
        pus = set()
        for c in cores[first:last + 1]:
            pus |= pus_of(c)
        el = ET.Element("cpukind", {"cpuset": mask(pus), "forced_efficiency": str(eff)})
        ET.SubElement(el, "info", {"name": "CoreType", "value": core_type})
        root.insert(at, el)
        at += 1
    path = os.path.join(HERE, name + ".xml")
    body = ET.tostring(root, encoding="unicode")
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n')
        f.write(body + "\n")
    check = subprocess.run(["lstopo-no-graphics", "-i", path, "--of", "console"],
                           capture_output=True, text=True)
    if check.returncode != 0 or "error" in check.stderr.lower():
        sys.exit("make.py: hwloc rejects %s: %s" % (path, check.stderr))
    print("wrote %s (%s)" % (os.path.relpath(path), synth))


for name, (synth, kinds, no_smt) in MACHINES.items():
    make(name, synth, kinds, list(no_smt))
