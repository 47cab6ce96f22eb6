package io.tablestorecdc.checkpoint.gate;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Which channels a batch may read, and why each other unfinished channel is held.
 *
 * @param readable ids of channels to read in the batch, sorted
 * @param held ids of unfinished channels not read, with the reason, sorted; finished tombstones
 *     appear in neither set
 */
@Internal
public record GateDecision(Set<String> readable, Map<String, HoldReason> held) {

    public GateDecision {
        Objects.requireNonNull(readable, "readable");
        Objects.requireNonNull(held, "held");
        readable = Collections.unmodifiableSortedSet(new TreeSet<>(readable));
        held = Collections.unmodifiableSortedMap(new TreeMap<>(held));
        for (String id : readable) {
            if (held.containsKey(id)) {
                throw new IllegalArgumentException("Channel " + id + " is both readable and held");
            }
        }
    }

    public boolean isReadable(String channelId) {
        return readable.contains(channelId);
    }
}
