package io.tablestorecdc.emulator.tunnel;

import java.util.Optional;

/**
 * One channel of one tunnel: a base-data snapshot of a partition's range or a partition's stream
 * log from a start index. Holds its assignment (owner, version, closing), its server checkpoint
 * with sequence number, and whether it is finished. Guarded by the owning {@link Tunnels}' lock.
 */
final class TunnelChannel {

    private final String id;
    private final ChannelKind kind;
    private final String partitionId;
    private final int startOffset;
    private long version;
    private Optional<String> owner = Optional.empty();
    private boolean closing;
    private boolean finished;
    private String checkpoint;
    private long sequenceNumber;
    private long consumePointNanos;
    private long consumedCount;

    TunnelChannel(
            String id, ChannelKind kind, String partitionId, int startOffset, ChannelToken start) {
        this.id = id;
        this.kind = kind;
        this.partitionId = partitionId;
        this.startOffset = startOffset;
        this.checkpoint = start.encode();
        this.consumePointNanos = start.timeNanos();
    }

    String id() {
        return id;
    }

    ChannelKind kind() {
        return kind;
    }

    /** The partition a stream channel reads, or whose range a base channel snapshots. */
    String partitionId() {
        return partitionId;
    }

    int startOffset() {
        return startOffset;
    }

    long version() {
        return version;
    }

    Optional<String> owner() {
        return owner;
    }

    boolean isOwnedBy(String clientId) {
        return owner.isPresent() && owner.get().equals(clientId);
    }

    boolean isClosing() {
        return closing;
    }

    boolean isFinished() {
        return finished;
    }

    String checkpoint() {
        return checkpoint;
    }

    long sequenceNumber() {
        return sequenceNumber;
    }

    long consumePointNanos() {
        return consumePointNanos;
    }

    long consumedCount() {
        return consumedCount;
    }

    void assignTo(String clientId) {
        version++;
        owner = Optional.of(clientId);
        closing = false;
    }

    void requestClose() {
        closing = true;
    }

    /** The owner gave the channel back (or vanished); a later assignment bumps the version. */
    void release(long reportedVersion) {
        version = Math.max(version, reportedVersion);
        owner = Optional.empty();
        closing = false;
    }

    void markFinished() {
        finished = true;
    }

    void recordCheckpoint(String value, long sequence, Optional<ChannelToken> position) {
        checkpoint = value;
        sequenceNumber = sequence;
        position.ifPresent(
                p -> {
                    consumePointNanos = p.timeNanos();
                    consumedCount = p.offset() - startOffset;
                });
        if (ChannelToken.FINISHED.equals(value)) {
            finished = true;
        }
    }

    /** Was this channel ever handed to a client (so an unowned one shows CLOSE, not WAIT)? */
    boolean wasAssigned() {
        return version > 0;
    }
}
