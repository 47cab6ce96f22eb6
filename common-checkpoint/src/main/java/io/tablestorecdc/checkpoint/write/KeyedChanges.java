package io.tablestorecdc.checkpoint.write;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The buffered changes, by primary key, each key's changes kept in sequence order: what one
 * BatchWriteRow request will carry, one coalesced change per key.
 *
 * <p>Order rule: a change goes after every buffered change of its key whose sequence is not greater
 * than its own, so changes without a sequence ({@code SequenceInfo.NONE}, plain rows) keep their
 * arrival order, and a change that arrives after a later one of its key (a greater {@code _seq}) is
 * placed before it instead of overwriting it. The order holds within the buffer; across flushes
 * changes apply in arrival order, which the source keeps per key.
 */
final class KeyedChanges {

    private final Map<RowKey, List<RowWrite>> byKey = new LinkedHashMap<>();
    private long bytes;
    private int changes;

    /** Adds {@code change} in its key's sequence order. */
    void add(RowWrite change) {
        List<RowWrite> list = byKey.computeIfAbsent(change.key(), k -> new ArrayList<>(2));
        int at = list.size();
        while (at > 0 && list.get(at - 1).sequence().compareTo(change.sequence()) > 0) {
            at--;
        }
        list.add(at, change);
        bytes += change.estimatedBytes();
        changes++;
    }

    boolean contains(RowKey key) {
        return byKey.containsKey(key);
    }

    int keys() {
        return byKey.size();
    }

    /** Changes buffered, before coalescing. */
    int changes() {
        return changes;
    }

    long estimatedBytes() {
        return bytes;
    }

    boolean isEmpty() {
        return byKey.isEmpty();
    }

    /**
     * One change per key, each its key's changes composed in order, in the order keys were first
     * buffered; updates that change nothing are left out. Empties the buffer.
     */
    List<RowWrite> drain() {
        List<RowWrite> out = new ArrayList<>(byKey.size());
        for (List<RowWrite> list : byKey.values()) {
            RowWrite folded = list.get(0);
            for (int i = 1; i < list.size(); i++) {
                folded = folded.then(list.get(i));
            }
            if (!folded.isNoOp()) {
                out.add(folded);
            }
        }
        byKey.clear();
        bytes = 0;
        changes = 0;
        return out;
    }
}
