package mocking;

// fixtures/java/mocking/Meter.java after a refactoring: the private field readings is now
// count, the private method calibrate is now adjust; the behaviour is the same.

/** Branches that depend on what collaborators answer, and on private state. */
public class Meter {
    private final Sensor sensor;
    private int count;
    private boolean calibrated;

    public Meter(Sensor sensor) {
        this.sensor = sensor;
    }

    /** Needs two reads that differ for "moving", a negative one for "broken". */
    public String level() {
        int v = sensor.read();
        count++;
        if (v > 100) {
            return "high";
        }
        if (v < 0) {
            sensor.reset();
            return "broken";
        }
        int w = sensor.read();
        count++;
        if (w == v) {
            return "steady";
        }
        return w > v ? "rising" : "falling";
    }

    public String label() {
        String n = sensor.name();
        if (n == null) {
            return "?";
        }
        if (n.equals("north")) {
            return "N";
        }
        return n.length() > 3 ? n.substring(0, 3) : n;
    }

    /** Sums a source's values: needs an implementation of an abstract class. */
    public static int sum(Source s) {
        double total = 0;
        for (int i = 0; i < s.size(); i++) {
            double x = s.next();
            if (Double.isNaN(x)) {
                return -1;
            }
            total += x;
        }
        return total > 10.0 ? 1 : 0;
    }

    /** Private state gates the branch: only private access or many calls reach it. */
    public boolean ready() {
        if (calibrated) {
            return count > 2;
        }
        return false;
    }

    private void adjust(int offset) {
        calibrated = offset != 0;
    }

    static long elapsed(Clock c, long start) {
        long now = c.now();
        if (now < start) {
            return -1;
        }
        return now - start;
    }
}
