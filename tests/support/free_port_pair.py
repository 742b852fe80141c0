#!/usr/bin/env python3
"""Prints a MASTER_PORT that is free now together with its successor (rank 0's rendezvous
port), both below the kernel's ephemeral range: the loopback clients of tests running beside
the caller take their ports from that range and could take a chosen port before the ranks bind.
"""
import random
import socket
import sys


def bindable(port):
    with socket.socket() as s:
        try:
            s.bind(("", port))
        except OSError:
            return False
    return True


def main():
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ephemeral_low = int(f.read().split()[0])
    for _ in range(200):
        port = random.randrange(10000, max(10001, ephemeral_low - 2))
        if bindable(port) and bindable(port + 1):
            print(port)
            return 0
    print("no free port pair below the ephemeral range", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
