package io.tablestorecdc.e2e.crash;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** What both crash loops must show at the end, with the seed and log paths in every message. */
final class CrashAssertions {

    private CrashAssertions() {}

    static void assertExactlyOnceThroughLineage(
            CrashLoop.Outcome outcome, int kills, String context) {
        String where = context + "; child output: " + outcome.logs();
        assertThat(outcome.kills()).as(where).hasSize(kills);
        assertThat(outcome.report().violations()).as("change log audit (%s)", where).isEmpty();
        assertThat(outcome.report().committed())
                .as("committed changes vs changes the source wrote (%s)", where)
                .hasSize(outcome.expected().size());
        assertThat(outcome.diff().differences())
                .as("replica vs source table (%s)", where)
                .isEmpty();
        assertThat(outcome.diff().matches()).as(where).isTrue();
        assertThat(outcome.sinkDiff().differences())
                .as("replica written by the tablestore sink vs source table (%s)", where)
                .isEmpty();
        assertThat(outcome.sinkDiff().matches()).as(where).isTrue();
        assertLineageWasCrossed(outcome, where);
    }

    /**
     * At least one kill came after a split or merge and before its children were read, and the
     * children of the splits and merges were read in the end (the loop went through lineage).
     */
    private static void assertLineageWasCrossed(CrashLoop.Outcome outcome, String where) {
        List<CrashLoop.Kill> lineageKills =
                outcome.kills().stream().filter(k -> k.lineage().isPresent()).toList();
        if (outcome.kills().size() < 2) {
            return; // -Dcrash.*.kills=1: no split or merge was done
        }
        assertThat(lineageKills)
                .as("kills between a split or merge and its children's first records (%s)", where)
                .anyMatch(CrashLoop.Kill::childrenUnreadAtKill);
        Set<String> read = new HashSet<>();
        outcome.report().committed().forEach(c -> read.add(c.channel()));
        Set<String> children = new HashSet<>();
        lineageKills.forEach(k -> children.addAll(k.lineage().get().children()));
        assertThat(read).as("channels read (%s)", where).containsAnyElementsOf(children);
    }

    static void printSummary(String engine, CrashLoop.Outcome outcome, long seed, long startNanos) {
        Map<CrashLoop.Kind, Integer> byKind = new EnumMap<>(CrashLoop.Kind.class);
        outcome.kills().forEach(k -> byKind.merge(k.kind(), 1, Integer::sum));
        System.out.printf(
                "%s crash loop: seed %d, %d kills %s, %d deliveries, %d changes committed once,"
                        + " %d re-delivered (absorbed by the upsert), replica %s, tablestore sink"
                        + " replica %s, %.0f s%n",
                engine,
                seed,
                outcome.kills().size(),
                byKind,
                outcome.report().deliveries(),
                outcome.report().committed().size(),
                outcome.report().redelivered(),
                outcome.diff().matches() ? "MATCH" : "MISMATCH",
                outcome.sinkDiff().matches() ? "MATCH" : "MISMATCH",
                (System.nanoTime() - startNanos) / 1e9);
    }
}
