package io.tablestorecdc.checkpoint.testing;

import io.tablestorecdc.checkpoint.model.ChangeRecord;
import io.tablestorecdc.checkpoint.model.ChangeVisitor;
import io.tablestorecdc.checkpoint.model.ChannelPosition;
import io.tablestorecdc.checkpoint.model.SequenceInfo;
import io.tablestorecdc.checkpoint.tunnel.ReadResult;
import io.tablestorecdc.checkpoint.tunnel.RecordPage;
import java.util.List;

/**
 * One response of {@link FakeTunnelService}: a slice of a channel's log that notes, by log offset,
 * every record it converts or passes to a visitor, so tests can prove which records a reader
 * converted.
 */
final class LogPage implements RecordPage {

    private final RecordPage page;
    private final int from;
    private final List<Integer> converted;
    private final List<Integer> visited;

    LogPage(List<ChangeRecord> records, int from, List<Integer> converted, List<Integer> visited) {
        this.page = RecordPage.of(records);
        this.from = from;
        this.converted = converted;
        this.visited = visited;
    }

    /** A response of up to {@code size} records from {@code from}; finished past a sealed end. */
    static ReadResult read(FakeChannel c, int from, int size) {
        int to = (int) Math.min(c.records.size(), (long) from + size);
        boolean atEnd = to == c.records.size();
        ChannelPosition next =
                atEnd && c.sealed
                        ? ChannelPosition.finished()
                        : ChannelPosition.at(FakeTunnelService.token(c.id, to));
        LogPage page = new LogPage(c.records.subList(from, to), from, c.converted, c.visited);
        return new ReadResult(page, next, !atEnd);
    }

    @Override
    public int size() {
        return page.size();
    }

    @Override
    public ChangeRecord record(int index) {
        ChangeRecord record = page.record(index);
        note(converted, index);
        return record;
    }

    @Override
    public SequenceInfo sequence(int index) {
        return page.sequence(index);
    }

    @Override
    public void visit(int index, ChangeVisitor visitor) {
        page.visit(index, visitor);
        note(visited, index);
    }

    private void note(List<Integer> offsets, int index) {
        synchronized (offsets) {
            offsets.add(from + index);
        }
    }
}
