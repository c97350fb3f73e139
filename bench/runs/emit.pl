#!/usr/bin/perl
# Benchmark emitter for bench/runs: prints N JSON lines {"type":"tick","n":I,"t":MICROS}, flushed one by one,
# where t is the wall-clock time (microseconds since the epoch) just before the line is written.
# Usage: emit.pl N [RATE]   RATE = lines per second (0 or absent: as fast as possible)
use strict;
use warnings;
use Time::HiRes qw(time sleep);
$| = 1;
my $n = shift // 10000;
my $rate = shift // 0;
my $start = time;
for my $i (0 .. $n - 1) {
    if ($rate > 0) {
        my $due = $start + $i / $rate;
        my $wait = $due - time;
        sleep($wait) if $wait > 0;
    }
    printf("{\"type\":\"tick\",\"n\":%d,\"t\":%d}\n", $i, int(time * 1e6));
}
