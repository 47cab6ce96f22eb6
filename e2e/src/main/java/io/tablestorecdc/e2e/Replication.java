package io.tablestorecdc.e2e;

import java.util.Optional;

/** One engine keeping a replica table in sync with the source table's change stream. */
public interface Replication extends AutoCloseable {

    /** {@code spark} or {@code flink}. */
    String engine();

    /** The replica table it writes (the first, with several source tables). */
    String replicaTable();

    /** The replica of source table {@code table}. */
    default String replicaOf(String table) {
        return replicaTable();
    }

    /** Starts the query or job; returns once it runs. */
    void start() throws Exception;

    EngineStats stats();

    /** Why it stopped, if it failed. */
    Optional<Throwable> failure();

    /** Stops the query or job. */
    @Override
    void close();
}
