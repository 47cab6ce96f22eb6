package io.tablestorecdc.checkpoint.testing;

import io.tablestorecdc.checkpoint.model.CellValue;
import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChannelType;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.model.ServerChannel;
import io.tablestorecdc.checkpoint.model.ServerChannelStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/** One channel as {@link FakeTunnelService} holds it; tests read it, the fake alone changes it. */
public final class FakeChannel {
    final String id;
    final ChannelType type;
    final List<String> parents;
    final List<ChangeRecord> records = new CopyOnWriteArrayList<>();
    final List<Integer> converted = new ArrayList<>();
    final List<Integer> visited = new ArrayList<>();
    ServerChannelStatus status;
    long version;
    String owner;
    String checkpoint;
    long sequence;
    boolean sealed;
    boolean forgotten;

    FakeChannel(String id, ChannelType type, List<String> parents, ServerChannelStatus s) {
        this.id = id;
        this.type = type;
        this.parents = List.copyOf(parents);
        this.status = s;
        this.checkpoint = FakeTunnelService.token(id, 0);
    }

    public ChannelType type() {
        return type;
    }

    public List<String> parents() {
        return parents;
    }

    public ServerChannelStatus status() {
        return status;
    }

    public long version() {
        return version;
    }

    public Optional<String> owner() {
        return Optional.ofNullable(owner);
    }

    public String checkpoint() {
        return checkpoint;
    }

    public long sequence() {
        return sequence;
    }

    public List<ChangeRecord> records() {
        return List.copyOf(records);
    }

    /** Offsets of the records converted to a {@link ChangeRecord}, in call order. */
    public List<Integer> converted() {
        synchronized (converted) {
            return List.copyOf(converted);
        }
    }

    /** Offsets of the records passed to a visitor, in call order. */
    public List<Integer> visited() {
        synchronized (visited) {
            return List.copyOf(visited);
        }
    }

    public boolean sealed() {
        return sealed;
    }

    ServerChannel listed() {
        return new ServerChannel(id, type, status, owner(), 0L);
    }

    boolean waits() {
        return status == ServerChannelStatus.WAIT;
    }

    /** CLOSE, or OPEN and held by no client: the server offers it on the next heartbeat. */
    boolean free() {
        return status == ServerChannelStatus.CLOSE
                || (status == ServerChannelStatus.OPEN && owner == null);
    }

    void free(ServerChannelStatus newStatus) {
        owner = null;
        status = newStatus;
    }

    void assignTo(String client) {
        status = ServerChannelStatus.OPEN;
        version++;
        owner = client;
    }

    /** Listed in the client's heartbeat answer. */
    boolean assignedTo(String client) {
        boolean listed =
                status == ServerChannelStatus.OPEN || status == ServerChannelStatus.CLOSING;
        return listed && client.equals(owner);
    }

    /** OPEN and held by no other client. */
    boolean readableBy(String client) {
        return status == ServerChannelStatus.OPEN && (owner == null || owner.equals(client));
    }

    /** Appends a PUT of integer key {@code key} with a column {@code v = 'v<key>'}. */
    void append(long key) {
        int index = records.size();
        records.add(
                new ChangeRecord(
                        ChangeRecord.Action.PUT,
                        List.of(new ChangeRecord.PrimaryKeyColumn("id", CellValue.ofInteger(key))),
                        List.of(
                                new ChangeRecord.ColumnChange(
                                        "v",
                                        ChangeRecord.ColumnOperation.PUT,
                                        CellValue.ofString("v" + key),
                                        0L)),
                        new SequenceInfo(1, 1_000_000L + index * 1000L, index),
                        id));
    }
}
