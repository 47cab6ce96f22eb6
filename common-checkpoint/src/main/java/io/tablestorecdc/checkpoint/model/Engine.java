package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.Internal;

/**
 * The engine a consumer runs in, for the words of the core's messages: what a consumer is called
 * and how a user starts one afresh, in that engine's terms.
 */
@Internal
public enum Engine {
    SPARK("query", "checkpoint location", "start the query with a new checkpoint location"),
    FLINK(
            "job",
            "checkpoint or savepoint",
            "start the job without its checkpoint or savepoint (or with a new source uid)");

    /** How a Flink job's consumer id starts; a Spark query's is its checkpoint location. */
    public static final String FLINK_CONSUMER_ID_PREFIX = "flink-job-";

    private final String consumer;
    private final String state;
    private final String freshStart;

    Engine(String consumer, String state, String freshStart) {
        this.consumer = consumer;
        this.state = state;
        this.freshStart = freshStart;
    }

    /** "query" or "job". */
    public String consumer() {
        return consumer;
    }

    /**
     * What the engine's saved state is called: "checkpoint location", "checkpoint or savepoint".
     */
    public String state() {
        return state;
    }

    /** How to start a consumer without its saved state, as an imperative clause. */
    public String freshStart() {
        return freshStart;
    }

    /** The engine of a tunnel owner, from its consumer id (as the owner lease records it). */
    public static Engine ofConsumerId(String consumerId) {
        return consumerId.startsWith(FLINK_CONSUMER_ID_PREFIX) ? FLINK : SPARK;
    }
}
