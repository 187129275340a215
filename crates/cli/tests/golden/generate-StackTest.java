package examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.EmptyStackException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@SuppressWarnings({"rawtypes", "unchecked", "deprecation"})
public class StackTest {

    @Test
    @Timeout(4)
    public void push() throws Throwable {
        Stack stack = new Stack();
        stack.push(1832);
    }

    @Test
    @Timeout(4)
    public void push2() throws Throwable {
        Stack stack = new Stack();
        stack.size = 1688;
        stack.push(-902);
    }

    @Test
    @Timeout(4)
    public void popThrowsEmptyStackException() throws Throwable {
        Stack stack = new Stack();
        assertThrows(EmptyStackException.class, () -> stack.pop());
    }

    @Test
    @Timeout(4)
    public void pop() throws Throwable {
        Stack stack = new Stack();
        stack.push(-1652);
        int i = stack.pop();
        assertEquals(-1652, i);
    }

    @Test
    @Timeout(4)
    public void newStack() throws Throwable {
        new Stack();
    }

    @Test
    @Timeout(4)
    public void pushThrowsArrayIndexOutOfBoundsException() throws Throwable {
        Stack stack = new Stack();
        int i = -1765;
        stack.size = i;
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> stack.push(i));
    }

    @Test
    @Timeout(4)
    public void popThrowsArrayIndexOutOfBoundsException() throws Throwable {
        Stack stack = new Stack();
        stack.size = 1810;
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> stack.pop());
    }

    @Test
    @Timeout(4)
    public void popThrowsNullPointerException() throws Throwable {
        Stack stack = new Stack();
        stack.size = 541;
        stack.values = (int[]) null;
        assertThrows(NullPointerException.class, () -> stack.pop());
    }

    @Test
    @Timeout(4)
    public void pushThrowsNullPointerException() throws Throwable {
        Stack stack = new Stack();
        stack.values = (int[]) null;
        assertThrows(NullPointerException.class, () -> stack.push(1078));
    }
}
