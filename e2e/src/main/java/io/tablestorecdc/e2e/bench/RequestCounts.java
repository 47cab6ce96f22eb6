package io.tablestorecdc.e2e.bench;

import io.tablestorecdc.emulator.server.EmulatorServer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The emulator's request counters at one moment, by action. Differences between two snapshots are
 * what a consumer asked of the server in between (nothing else writes while one is measured).
 */
record RequestCounts(Map<String, Long> byAction) {

    /** The table API: during a measurement only the meta table (and one DescribeTable) use it. */
    static final List<String> TABLE_ACTIONS =
            List.of(
                    "CreateTable",
                    "DescribeTable",
                    "ListTable",
                    "PutRow",
                    "UpdateRow",
                    "DeleteRow",
                    "GetRow",
                    "GetRange",
                    "BatchWriteRow",
                    "BatchGetRow");

    static final List<String> TUNNEL_ACTIONS =
            List.of(
                    "tunnel/describe",
                    "tunnel/connect",
                    "tunnel/heartbeat",
                    "tunnel/getcheckpoint",
                    "tunnel/checkpoint",
                    "tunnel/readrecords",
                    "tunnel/shutdown");

    static RequestCounts of(EmulatorServer server) {
        Map<String, Long> counts = new LinkedHashMap<>();
        TABLE_ACTIONS.forEach(a -> counts.put(a, server.requestCount(a)));
        TUNNEL_ACTIONS.forEach(a -> counts.put(a, server.requestCount(a)));
        return new RequestCounts(counts);
    }

    RequestCounts minus(RequestCounts earlier) {
        Map<String, Long> delta = new LinkedHashMap<>();
        byAction.forEach((a, n) -> delta.put(a, n - earlier.byAction.getOrDefault(a, 0L)));
        return new RequestCounts(delta);
    }

    long table() {
        return TABLE_ACTIONS.stream().mapToLong(a -> byAction.getOrDefault(a, 0L)).sum();
    }

    long tunnel() {
        return TUNNEL_ACTIONS.stream().mapToLong(a -> byAction.getOrDefault(a, 0L)).sum();
    }

    long get(String action) {
        return byAction.getOrDefault(action, 0L);
    }
}
