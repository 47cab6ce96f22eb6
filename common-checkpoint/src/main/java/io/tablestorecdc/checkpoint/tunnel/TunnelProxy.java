package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.TunnelType;
import java.time.Duration;
import java.util.List;

/**
 * The Tablestore Tunnel Service in this project's terms: tunnels, channels, positions and change
 * records. The only way the core talks to the tunnel server.
 *
 * <p>{@link SdkTunnelProxy} is the single implementation over the SDK; tests use a stateful fake.
 * Every method fails with a {@link TunnelException} whose kind says what happened; implementations
 * retry transient errors themselves, so a caller sees only errors that are not worth repeating.
 */
@Internal
public interface TunnelProxy extends AutoCloseable {

    /**
     * Describes a tunnel and lists its channels.
     *
     * @throws TunnelException {@link TunnelException.Kind#NOT_FOUND} when the table or tunnel does
     *     not exist
     */
    TunnelDescription describeTunnel(String tableName, String tunnelName);

    /**
     * Creates a tunnel and returns its id.
     *
     * @throws TunnelException {@link TunnelException.Kind#ALREADY_EXISTS} when a tunnel of that
     *     name exists
     */
    String createTunnel(String tableName, String tunnelName, TunnelType type, TunnelStart start);

    /**
     * Describes the tunnel, creating it first when it does not exist. When another consumer creates
     * it at the same moment, its tunnel is described instead.
     */
    default TunnelDescription describeOrCreateTunnel(
            String tableName, String tunnelName, TunnelType type, TunnelStart start) {
        try {
            return describeTunnel(tableName, tunnelName);
        } catch (TunnelException e) {
            if (e.kind() != TunnelException.Kind.NOT_FOUND) {
                throw e;
            }
        }
        try {
            createTunnel(tableName, tunnelName, type, start);
        } catch (TunnelException e) {
            if (e.kind() != TunnelException.Kind.ALREADY_EXISTS) {
                throw e;
            }
        }
        return describeTunnel(tableName, tunnelName);
    }

    /**
     * Connects as a tunnel client.
     *
     * @param clientTag a label the server shows for this client (for example the query or job name)
     * @param heartbeatTimeout how long the server keeps this client without a heartbeat
     */
    TunnelClientId connect(String tunnelId, String clientTag, Duration heartbeatTimeout);

    /**
     * Reports the channels this client holds and returns the channels the server assigns to it. The
     * caller merges the answer (see {@link TunnelSession}).
     */
    List<AssignedChannel> heartbeat(TunnelClientId client, List<HeldChannel> held);

    /** The server's checkpoint of a channel and its sequence number. */
    ServerCheckpoint getCheckpoint(TunnelClientId client, String channelId);

    /**
     * Stores a channel's position on the server, with optimistic concurrency on the sequence
     * number.
     *
     * <p>Only the position's token is stored (the server has no notion of skip); a finished
     * position is stored as the {@value ChannelPosition#FINISHED_TOKEN} token. When the server
     * answers {@code OTSSequenceNumberNotMatch}, the checkpoint is re-read once: if it already
     * holds this token, the call succeeds with the server's sequence number; otherwise the position
     * is sent again once with the server's next sequence number. A server checkpoint that is
     * already finished is never overwritten with an unfinished one ({@link
     * TunnelException.Kind#CHECKPOINT_CONFLICT}).
     *
     * @param sequenceNumber the sequence number to send, normally the last accepted one plus 1
     * @return the sequence number the server accepted; the next checkpoint sends this plus 1
     */
    long checkpoint(
            TunnelClientId client, String channelId, ChannelPosition position, long sequenceNumber);

    /**
     * Reads one batch of records from a channel starting at a token.
     *
     * @param token the token to read from; never {@value ChannelPosition#FINISHED_TOKEN}
     */
    ReadResult readRecords(TunnelClientId client, String channelId, String token);

    /** Tells the server this client stops, so that its channels are released at once. */
    void shutdown(TunnelClientId client);

    /** Releases the underlying client's connections and threads. */
    @Override
    void close();
}
