module github.com/kafkasim/kafkasim

go 1.26
