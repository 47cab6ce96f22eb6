package io.tablestorecdc.checkpoint.merge;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.Engine;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The consumer was restored from state older than the tunnel server's, and some changes it has not
 * delivered can no longer be read (see {@link ServerAheadPolicy}). Thrown before anything is
 * delivered; the engine adds where its state came from with {@link #withContext}.
 */
@Internal
public final class ServerAheadException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String tunnelId;
    private final List<UnreadableChannel> channels;

    public ServerAheadException(String tunnelId, List<UnreadableChannel> channels) {
        this(tunnelId, channels, message(Engine.SPARK, "tunnel id " + tunnelId, "", channels));
    }

    private ServerAheadException(
            String tunnelId, List<UnreadableChannel> channels, String message) {
        super(message);
        this.tunnelId = Objects.requireNonNull(tunnelId, "tunnelId");
        this.channels = List.copyOf(channels);
    }

    public String tunnelId() {
        return tunnelId;
    }

    public List<UnreadableChannel> channels() {
        return channels;
    }

    /**
     * The same failure, worded for {@code engine}, naming the tunnel as the user configured it and
     * the state it was restored from (a checkpoint location and batch, a checkpoint or savepoint).
     */
    public ServerAheadException withContext(Engine engine, String tunnel, String restoredFrom) {
        return new ServerAheadException(
                tunnelId, channels, message(engine, tunnel, restoredFrom, channels));
    }

    private static String message(
            Engine engine, String tunnel, String restoredFrom, List<UnreadableChannel> channels) {
        String list =
                channels.stream()
                        .map(UnreadableChannel::describe)
                        .collect(Collectors.joining("; "));
        return "The "
                + engine.consumer()
                + " on "
                + tunnel
                + " was restored from state older than the tunnel server's"
                + (restoredFrom.isEmpty() ? "" : " (" + restoredFrom + ")")
                + ": the server has finished "
                + channels.size()
                + " channel(s) this state has not read to their end, and never serves a finished"
                + " channel again, so going on would lose these changes: "
                + list
                + ". Nothing was delivered. Ways out: restore from the newest "
                + engine.state()
                + " instead; or reprocess history on purpose through a new tunnel started at a"
                + " time (a new tunnel.name with tunnel.create and tunnel.start) and "
                + engine.freshStart()
                + "; or accept the loss and go on with option "
                + ServerAheadPolicy.OPTION_KEY
                + "=skip.";
    }
}
