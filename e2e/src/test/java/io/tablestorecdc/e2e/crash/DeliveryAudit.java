package io.tablestorecdc.e2e.crash;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Checks what a crash loop's sink received against the source table's change history.
 *
 * <p>Allowed, because an upsert-by-key sink absorbs it: a unit (Spark batch id, Flink checkpoint)
 * that was delivered but not committed by the engine when the child was killed is delivered again.
 * Everything else is a violation: a record missing, a record in two committed units, a record the
 * source never wrote, a key's changes out of commit order, and for Spark a batch id re-delivered
 * with other records than the first time or a batch id skipped.
 */
public final class DeliveryAudit {

    private static final int SHOWN = 5;

    /**
     * The outcome.
     *
     * @param violations what broke, one readable line each (empty when all holds)
     * @param committed the changes of the committed units, in delivery order: each exactly once
     *     when there are no violations
     * @param deliveries how many deliveries were logged, torn ones included
     * @param redelivered how many records were delivered more than once (absorbed by the sink)
     */
    public record Report(
            List<String> violations,
            List<DeliveredChange> committed,
            int deliveries,
            int redelivered) {

        public Report {
            violations = List.copyOf(violations);
            committed = List.copyOf(committed);
        }

        public boolean holds() {
            return violations.isEmpty();
        }

        /** Identities of the expected changes that no committed unit carried. */
        public long missingFrom(Map<String, String> expected) {
            TreeSet<String> seen = new TreeSet<>();
            committed.forEach(c -> seen.add(c.identity()));
            return expected.keySet().stream().filter(id -> !seen.contains(id)).count();
        }
    }

    private DeliveryAudit() {}

    /**
     * Spark: {@code deliveries} in run order, each run's in logged order. Spark re-runs only the
     * latest batch of its offset log after a restart, with the same records (the source replays a
     * batch exactly); so each run starts at the latest batch id seen or the next one, batch ids
     * grow by one within a run, every complete delivery of a batch id carries exactly the same
     * records, and a torn one is a prefix of them. The committed sequence is each batch id's
     * records once, in batch id order.
     *
     * @param expected identity to operation of every change the source wrote (see {@link
     *     DeliveredChange#identity()})
     */
    public static Report spark(List<Delivery> deliveries, Map<String, String> expected) {
        List<String> violations = new ArrayList<>();
        long latest = checkBatchOrder(deliveries, violations);
        Map<Long, Delivery> complete = new TreeMap<>();
        deliveries.forEach(d -> checkReplay(d, complete, violations));
        deliveries.forEach(d -> checkTorn(d, complete, violations));
        for (long batch = 0; batch <= latest; batch++) {
            if (!complete.containsKey(batch)) {
                violations.add("batch " + batch + " was never delivered completely");
            }
        }
        List<DeliveredChange> committed = new ArrayList<>();
        complete.values().forEach(d -> committed.addAll(d.changes()));
        return finish(deliveries, committed, expected, violations);
    }

    /** Checks the batch id sequence; returns the latest batch id delivered (-1 if none). */
    private static long checkBatchOrder(List<Delivery> deliveries, List<String> violations) {
        long latest = -1;
        Delivery previous = null;
        for (Delivery d : deliveries) {
            boolean firstOfRun = previous == null || previous.run() != d.run();
            if (firstOfRun && d.unit() != latest && d.unit() != latest + 1) {
                violations.add(
                        "run "
                                + d.run()
                                + " started at batch "
                                + d.unit()
                                + " but the latest batch before was "
                                + latest
                                + ": a restart may only re-run the latest batch or go on to the"
                                + " next");
            } else if (!firstOfRun && d.unit() != previous.unit() + 1) {
                violations.add(
                        "run "
                                + d.run()
                                + " went from batch "
                                + previous.unit()
                                + " to "
                                + d.unit());
            }
            latest = Math.max(latest, d.unit());
            previous = d;
        }
        return latest;
    }

    /** Keeps the first complete delivery per batch id; a later one must carry the same records. */
    private static void checkReplay(
            Delivery d, Map<Long, Delivery> complete, List<String> violations) {
        if (!d.complete()) {
            return;
        }
        Delivery first = complete.putIfAbsent(d.unit(), d);
        if (first != null && !first.changes().equals(d.changes())) {
            violations.add(
                    "batch "
                            + d.unit()
                            + " was delivered again with other records: "
                            + first
                            + " vs "
                            + d
                            + firstDifference(first.changes(), d.changes()));
        }
    }

    private static void checkTorn(
            Delivery d, Map<Long, Delivery> complete, List<String> violations) {
        if (d.complete()) {
            return;
        }
        Delivery whole = complete.get(d.unit());
        if (whole == null) {
            return; // reported as never delivered completely
        }
        List<DeliveredChange> all = whole.changes();
        if (d.changes().size() > all.size()
                || !all.subList(0, d.changes().size()).equals(d.changes())) {
            violations.add(
                    "the torn delivery "
                            + d
                            + " is not a prefix of "
                            + whole
                            + firstDifference(all, d.changes()));
        }
    }

    /**
     * Flink: {@code deliveries} in run order; each run's checkpoint ids grow per subtask. A run's
     * deliveries for checkpoints up to {@code committedThrough.get(run)} are committed (the next
     * run restored from that checkpoint of this run; the last run counts whole); later ones were
     * replayed after the restore. A committed checkpoint's delivery must be complete: the
     * checkpoint completed only after every sink subtask logged its part.
     */
    public static Report flink(
            List<Delivery> deliveries,
            Map<Integer, OptionalLong> committedThrough,
            Map<String, String> expected) {
        List<String> violations = new ArrayList<>();
        checkCheckpointOrder(deliveries, violations);
        List<DeliveredChange> committed = new ArrayList<>();
        for (Delivery d : deliveries) {
            OptionalLong limit = committedThrough.getOrDefault(d.run(), OptionalLong.empty());
            if (limit.isPresent() && d.unit() <= limit.getAsLong()) {
                if (!d.complete()) {
                    violations.add(
                            "checkpoint " + d.unit() + " was restored from, but " + d + " is torn");
                }
                committed.addAll(d.changes());
            }
        }
        return finish(deliveries, committed, expected, violations);
    }

    /** A sink subtask flushes once per checkpoint, in checkpoint order. */
    private static void checkCheckpointOrder(List<Delivery> deliveries, List<String> violations) {
        Map<String, Long> lastUnit = new HashMap<>();
        for (Delivery d : deliveries) {
            Long before = lastUnit.put(d.run() + "/" + d.subtask(), d.unit());
            if (before != null && before >= d.unit()) {
                violations.add(
                        "run "
                                + d.run()
                                + " subtask "
                                + d.subtask()
                                + " logged checkpoint "
                                + d.unit()
                                + " after "
                                + before);
            }
        }
    }

    private static Report finish(
            List<Delivery> deliveries,
            List<DeliveredChange> committed,
            Map<String, String> expected,
            List<String> violations) {
        checkExactlyOnce(committed, expected, violations);
        checkKeyOrder(committed, violations);
        int all = deliveries.stream().mapToInt(d -> d.changes().size()).sum();
        return new Report(violations, committed, deliveries.size(), all - committed.size());
    }

    private static void checkExactlyOnce(
            List<DeliveredChange> committed, Map<String, String> expected, List<String> out) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        List<String> wrongOp = new ArrayList<>();
        for (DeliveredChange c : committed) {
            counts.merge(c.identity(), 1, Integer::sum);
            String op = expected.get(c.identity());
            if (op != null && !op.equals(c.op())) {
                wrongOp.add(c.identity() + " is " + op + " in the source but came as " + c.op());
            }
        }
        report(
                out,
                "changes in more than one committed unit",
                counts.entrySet().stream()
                        .filter(e -> e.getValue() > 1)
                        .map(e -> e.getKey() + " x" + e.getValue())
                        .toList());
        report(
                out,
                "changes the source wrote that were never delivered",
                expected.keySet().stream().filter(id -> !counts.containsKey(id)).toList());
        report(
                out,
                "delivered changes the source never wrote",
                counts.keySet().stream().filter(id -> !expected.containsKey(id)).toList());
        report(out, "changes with the wrong operation", wrongOp);
    }

    private static void checkKeyOrder(List<DeliveredChange> committed, List<String> out) {
        Map<String, DeliveredChange> last = new HashMap<>();
        List<String> wrong = new ArrayList<>();
        for (DeliveredChange c : committed) {
            DeliveredChange before = last.put(c.orderId(), c);
            if (before != null && !precedes(before, c)) {
                wrong.add(c.orderId() + ": " + c.identity() + " after " + before.identity());
            }
        }
        report(out, "changes of a key out of commit order", wrong);
    }

    /** Base data comes first for a key (the stream waits for it), then commit time order. */
    private static boolean precedes(DeliveredChange a, DeliveredChange b) {
        if (a.isBaseData() || b.isBaseData()) {
            return a.isBaseData() && !b.isBaseData();
        }
        return a.commitMicros() < b.commitMicros();
    }

    private static void report(List<String> out, String what, List<String> items) {
        if (!items.isEmpty()) {
            out.add(
                    items.size()
                            + " "
                            + what
                            + ", first: "
                            + items.subList(0, Math.min(SHOWN, items.size())));
        }
    }

    private static String firstDifference(List<DeliveredChange> a, List<DeliveredChange> b) {
        for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
            if (!Objects.equals(a.get(i), b.get(i))) {
                return "; first difference at #" + i + ": " + a.get(i) + " vs " + b.get(i);
            }
        }
        return "; sizes " + a.size() + " vs " + b.size();
    }
}
