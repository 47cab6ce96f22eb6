package io.tablestorecdc.cli;

import io.tablestorecdc.checkpoint.meta.ConsumerProgress;
import io.tablestorecdc.checkpoint.model.ChannelCheckpoint;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One channel as {@code describe} and {@code lag} show it: the server's view and the consumer's
 * newest snapshot entry side by side, and the lag they give.
 *
 * @param server the channel as the server lists it
 * @param engine its entry in the consumer's newest complete snapshot, if the snapshot has one
 * @param lag how far behind the channel is (see {@link #of}); empty when nothing was read yet
 * @param caughtUp whether the live consumer's catch-up report says the channel was read to its end
 *     at its committed position
 */
record ChannelRow(
        ServerChannel server,
        Optional<ChannelCheckpoint> engine,
        Optional<Duration> lag,
        boolean caughtUp) {

    /**
     * The row of {@code server} at {@code now}. A terminated channel has no lag, nor has one the
     * live consumer reports caught up at the position it committed ({@code progress}: its current
     * report, if any); another's lag is the time since the newest change read from it, by the
     * server's checkpoint or the consumer's snapshot, whichever is newer.
     */
    static ChannelRow of(
            ServerChannel server,
            Optional<ChannelCheckpoint> engine,
            Optional<ConsumerProgress> progress,
            Instant now) {
        if (server.status() == ServerChannelStatus.TERMINATED) {
            return new ChannelRow(server, engine, Optional.of(Duration.ZERO), false);
        }
        boolean caughtUp =
                engine.isPresent()
                        && progress.isPresent()
                        && progress.get().isCaughtUp(server.channelId(), engine.get().position());
        if (caughtUp) {
            return new ChannelRow(server, engine, Optional.of(Duration.ZERO), true);
        }
        Optional<Instant> newest = newer(serverCheckpointTime(server), lastRecordTime(engine));
        Optional<Duration> lag =
                newest.map(t -> now.isAfter(t) ? Duration.between(t, now) : Duration.ZERO);
        return new ChannelRow(server, engine, lag, false);
    }

    /** The commit time of the change at the server's checkpoint, when the server says. */
    static Optional<Instant> serverCheckpointTime(ServerChannel server) {
        return server.consumePointMillis() > 0
                ? Optional.of(Instant.ofEpochMilli(server.consumePointMillis()))
                : Optional.empty();
    }

    /** The commit time of the last record the consumer's snapshot says it read. */
    static Optional<Instant> lastRecordTime(Optional<ChannelCheckpoint> engine) {
        return engine.map(ChannelCheckpoint::lastSequence)
                .filter(s -> s.isPresent() && s.timestampMicros() > 0)
                .map(s -> Instant.ofEpochSecond(0, s.timestampMicros() * 1000));
    }

    Optional<Instant> serverCheckpointTime() {
        return serverCheckpointTime(server);
    }

    Optional<Instant> lastRecordTime() {
        return lastRecordTime(engine);
    }

    private static Optional<Instant> newer(Optional<Instant> a, Optional<Instant> b) {
        if (a.isEmpty()) {
            return b;
        }
        if (b.isEmpty()) {
            return a;
        }
        return Optional.of(a.get().isAfter(b.get()) ? a.get() : b.get());
    }
}
