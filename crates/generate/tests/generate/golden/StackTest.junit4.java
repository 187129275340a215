package examples;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.FileInputStream;
import java.io.FileNotFoundException;
import java.util.AbstractMap;
import java.util.Arrays;
import java.util.EmptyStackException;
import java.util.concurrent.TimeUnit;
import org.junit.Test;

@SuppressWarnings({"rawtypes", "unchecked", "deprecation"})
public class StackTest {

    @Test(timeout = 4000)
    public void pop() throws Throwable {
        Stack stack = new Stack();
        stack.push(3);
        int i = stack.pop();
        assertEquals(3, i);
    }

    @Test(timeout = 4000)
    public void popThrowsEmptyStackException() throws Throwable {
        Stack stack = new Stack();
        try {
            stack.pop();
            fail("Expecting exception: EmptyStackException");
        } catch (EmptyStackException e) {
            // expected
        }
    }

    @Test(timeout = 4000)
    public void toString2() throws Throwable {
        StringBuilder stringBuilder = new StringBuilder("tab\t\"quote\" back\\slash \u00e9\u2603 \ud83d\ude00");
        assertEquals("tab\t\"quote\" back\\slash \u00e9\u2603 \ud83d\ude00", stringBuilder.toString());
        StringBuilder stringBuilder2 = stringBuilder.append('\n');
        assertNotNull(stringBuilder2);
        assertEquals("tab\t\"quote\" back\\slash \u00e9\u2603 \ud83d\ude00\n", stringBuilder2.toString());
        String string = stringBuilder.toString();
        assertEquals("tab\t\"quote\" back\\slash \u00e9\u2603 \ud83d\ude00\n", string);
    }

    @Test(timeout = 4000)
    public void parseIntThrowsNumberFormatException() throws Throwable {
        try {
            Integer.parseInt("x1");
            fail("Expecting exception: NumberFormatException");
        } catch (NumberFormatException e) {
            // expected
        }
    }

    @Test(timeout = 4000)
    public void min() throws Throwable {
        long n = Math.max(Long.MIN_VALUE, -1L);
        assertEquals(-1L, n);
        int i = Math.abs(Integer.MIN_VALUE);
        assertEquals(Integer.MIN_VALUE, i);
        boolean flag = Double.isNaN(Double.NaN);
        assertTrue(flag);
        float f = Float.intBitsToFloat(2139095040);
        assertEquals(Float.POSITIVE_INFINITY, f, 0.0F);
        double d = Math.min(-0.0, 5e-324);
        assertEquals(-0.0, d, 0.0);
    }

    @Test(timeout = 4000)
    public void toMillis() throws Throwable {
        TimeUnit timeUnit = TimeUnit.valueOf("SECONDS");
        assertEquals(TimeUnit.SECONDS, timeUnit);
        long n = timeUnit.toMillis(2L);
        assertEquals(2000L, n);
    }

    @Test(timeout = 4000)
    public void newFileInputStreamThrowsFileNotFoundException() throws Throwable {
        try {
            new FileInputStream("/nonexistent/ferrosuite/input");
            fail("Expecting exception: FileNotFoundException");
        } catch (Exception e) {
            assertTrue(e instanceof FileNotFoundException);
        }
    }

    @Test(timeout = 4000)
    public void valueOf() throws Throwable {
        String string = String.valueOf((Object) null);
        assertEquals("null", string);
    }

    @Test(timeout = 4000)
    public void copyOf() throws Throwable {
        int[] intArray = new int[3];
        intArray[1] = 7;
        String string = Arrays.toString(intArray);
        assertEquals("[0, 7, 0]", string);
        int[] intArray2 = Arrays.copyOf(intArray, 2);
        assertArrayEquals(new int[] {0, 7}, intArray2);
    }

    @Test(timeout = 4000)
    public void copyOf2() throws Throwable {
        String string = "a,,b";
        String[] stringArray = string.split(",");
        assertArrayEquals(new String[] {"a", "", "b"}, stringArray);
        String string2 = "hi\n";
        char[] charArray = string2.toCharArray();
        assertArrayEquals(new char[] {'h', 'i', '\n'}, charArray);
        double[] doubleArray = new double[2];
        doubleArray[0] = Double.NaN;
        int i = 3;
        double[] doubleArray2 = Arrays.copyOf(doubleArray, i);
        assertArrayEquals(new double[] {Double.NaN, 0.0, 0.0}, doubleArray2, 0.0);
        boolean[] booleanArray = new boolean[1];
        boolean[] booleanArray2 = Arrays.copyOf(booleanArray, i);
        assertArrayEquals(new boolean[] {false, false, false}, booleanArray2);
    }

    @Test(timeout = 4000)
    public void reverseBytes() throws Throwable {
        AbstractMap.SimpleEntry simpleEntry = new AbstractMap.SimpleEntry((Object) "k", (Object) "v");
        assertEquals("k", simpleEntry.getKey());
        assertEquals("v", simpleEntry.getValue());
        assertEquals("k=v", simpleEntry.toString());
        Object object = simpleEntry.getValue();
        assertEquals("v", object);
        int i = Integer.MAX_VALUE;
        assertEquals(2147483647, i);
        char c = Character.toUpperCase('a');
        assertEquals('A', c);
        byte b = Byte.parseByte("-7");
        assertEquals(-7, b);
        short s = Short.reverseBytes((short) 1);
        assertEquals(256, s);
    }
}
