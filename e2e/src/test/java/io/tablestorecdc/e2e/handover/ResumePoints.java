package io.tablestorecdc.e2e.handover;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where, per channel, a second consumer resumed the stream a first one stopped reading: the changes
 * both delivered must be the first one's last changes on that channel and the second one's first,
 * in the same order (the second resumed at one position and read forward).
 */
public final class ResumePoints {

    private ResumePoints() {}

    /** The changes of {@code channel} that both logs hold, in read order. */
    public static List<SeenChange> overlap(DeliveryLog first, DeliveryLog second, String channel) {
        Set<SeenChange.Key> later = new HashSet<>();
        second.byChannel().getOrDefault(channel, List.of()).forEach(c -> later.add(c.key()));
        List<SeenChange> both = new ArrayList<>();
        for (SeenChange c : first.byChannel().getOrDefault(channel, List.of())) {
            if (later.contains(c.key())) {
                both.add(c);
            }
        }
        return both;
    }

    /** Channels where the overlap is not a tail of the first log and a head of the second. */
    public static List<String> violations(DeliveryLog first, DeliveryLog second) {
        List<String> out = new ArrayList<>();
        Map<String, List<SeenChange>> later = second.byChannel();
        first.byChannel()
                .forEach(
                        (channel, read) -> {
                            int k = overlap(first, second, channel).size();
                            List<SeenChange> resumed = later.getOrDefault(channel, List.of());
                            List<SeenChange.Key> tail =
                                    keys(read.subList(read.size() - k, read.size()));
                            List<SeenChange.Key> head = keys(resumed.subList(0, k));
                            if (!tail.equals(head)) {
                                out.add(
                                        channel
                                                + ": the "
                                                + k
                                                + " changes read by both are not the tail of "
                                                + first.engine()
                                                + " and the head of "
                                                + second.engine());
                            }
                        });
        return out;
    }

    private static List<SeenChange.Key> keys(List<SeenChange> changes) {
        return changes.stream().map(SeenChange::key).toList();
    }
}
